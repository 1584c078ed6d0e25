package io.reshard.bench.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * What the application of one lifecycle was told about its writes: for every row id, the value of
 * its last acknowledged write, the values of later writes whose outcome is unknown (the commit
 * failed: the row may or may not hold them), and the values of writes refused before anything was
 * written; and, per acknowledged write, how it was routed and what its fence row said ({@link
 * Write}), for the stale-owner check. Values grow with time, and each id is written by one writer
 * thread at a time, so a later acknowledgement supersedes every earlier value. Thread-safe.
 */
final class AckLedger {
  /** The value of a row loaded before the lifecycle, and of no acknowledged write yet. */
  static final long LOADED = 0;

  /** No write of the id was acknowledged (an insert whose outcome is unknown, say). */
  static final long NONE = -1;

  /**
   * One acknowledged write, as the writer saw it.
   *
   * @param id the row
   * @param value the value written
   * @param mapVersion the shard map version the router's transaction was routed by
   * @param shard the shard it committed on
   * @param beginNanos when the successful attempt began ({@link System#nanoTime()})
   * @param fenceEpoch the fence row's epoch read inside the transaction just before its commit
   * @param fenceWritable the fence row's {@code writable} read there
   * @param router {@code live} or {@code lagging}
   */
  record Write(
      long id,
      long value,
      long mapVersion,
      String shard,
      long beginNanos,
      long fenceEpoch,
      boolean fenceWritable,
      String router) {}

  /** The ledger of one id. Guarded by itself. */
  static final class Entry {
    long acked = NONE;
    final List<Long> unknown = new ArrayList<>();
    final List<Long> refused = new ArrayList<>();

    /** The values the row may hold now: the acknowledged one and any unknown after it. */
    synchronized boolean mayHold(long value) {
      return value == acked || unknown.contains(value);
    }

    synchronized boolean wasRefused(long value) {
      return refused.contains(value);
    }

    synchronized long acked() {
      return acked;
    }
  }

  private final Map<Long, Entry> entries = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<Write> writes = new ConcurrentLinkedQueue<>();

  /** Records a row loaded before the lifecycle with plain SQL (value {@link #LOADED}). */
  void loaded(long id) {
    entry(id).acked = LOADED;
  }

  /** Records an acknowledged write. */
  void acknowledged(Write w) {
    Entry e = entry(w.id());
    synchronized (e) {
      e.acked = w.value();
      e.unknown.clear(); // the acknowledged write came after them and wrote over them
    }
    writes.add(w);
  }

  /** Records a write whose commit failed: the row may or may not hold {@code value}. */
  void unknown(long id, long value) {
    Entry e = entry(id);
    synchronized (e) {
      e.unknown.add(value);
    }
  }

  /** Records a write refused before its commit (a fence, a failed statement): nothing written. */
  void refused(long id, long value) {
    Entry e = entry(id);
    synchronized (e) {
      e.refused.add(value);
    }
  }

  /** The entry of {@code id}, or null if no write of it was ever tried or loaded. */
  Entry get(long id) {
    return entries.get(id);
  }

  /** Every id with an entry. */
  java.util.Set<Long> ids() {
    return entries.keySet();
  }

  /** Every acknowledged write, in acknowledgement order. */
  List<Write> writes() {
    return List.copyOf(writes);
  }

  /** How many writes were acknowledged (loaded rows not counted). */
  int acknowledgedCount() {
    return writes.size();
  }

  private Entry entry(long id) {
    return entries.computeIfAbsent(id, k -> new Entry());
  }
}
