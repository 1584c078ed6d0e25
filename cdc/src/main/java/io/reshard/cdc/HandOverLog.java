package io.reshard.cdc;

import java.util.List;

/**
 * The keyspace's hand-overs of write ownership, as the workflow journal holds them (the switcher
 * implements it over the workflow records). The keyspace stream reads it after every poll of the
 * change topics: a hand-over is recorded before any taker writes, so every change record already
 * polled from a taker's topic is covered by what this returns.
 */
@FunctionalInterface
public interface HandOverLog {
  /**
   * Every hand-over of {@code keyspace} recorded so far, in any order.
   *
   * @throws RuntimeException if the journal cannot be read; the stream stops and starts again
   */
  List<HandOver> read(String keyspace);
}
