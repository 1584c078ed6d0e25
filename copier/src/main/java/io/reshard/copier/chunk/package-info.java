/**
 * The copy of one table, chunk by chunk: {@link io.reshard.copier.chunk.TableCopy} (resume and the
 * chunk loop), {@code ChunkCopier} (one chunk: locked read, routing, target writes), {@link
 * io.reshard.copier.chunk.ChunkSizer} (chunk size adaptation), {@link
 * io.reshard.copier.chunk.ProgressCounter}. Internal to the copier.
 */
package io.reshard.copier.chunk;
