/**
 * The comparison of one table: {@link io.reshard.differ.compare.TableDiffer} (the chunk loop, the
 * merge order, progress and repair), {@link io.reshard.differ.compare.ChunkMatcher} (pairing and
 * byte-for-byte comparison of one chunk), {@link io.reshard.differ.compare.Tally}. Internal to the
 * differ.
 */
package io.reshard.differ.compare;
