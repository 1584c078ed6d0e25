/**
 * The copy phase: chunked, resumable copy of the existing rows of the moved tables from a source
 * shard to the target shards, converging with the change stream (DESIGN.md 4.6).
 *
 * <p>Not implemented yet: issue 5 builds it.
 */
package io.reshard.copier;
