package io.reshard.bench.chaos;

/**
 * The steps of one lifecycle of a split, in the order the chaos run drives them; a planned fault
 * names the step during which it is injected. {@link #COPY} is the wait for the copy that {@link
 * #CREATE} started; the second diff is the one a write switch needs after reverse traffic.
 */
enum LifecycleStep {
  /** {@code keyspace init}: shard map version 1 for the two source shards. */
  INIT("keyspace init"),
  /** {@code workflow create}: target tables, streams from P0, the copy starts. */
  CREATE("create"),
  /** The copy, until the workflow leaves {@code COPYING}. */
  COPY("copy"),
  /** {@code workflow diff}. */
  DIFF("diff"),
  /** {@code switch-traffic --reads}. */
  SWITCH_READS("switch reads"),
  /** {@code switch-traffic --writes}. */
  SWITCH_WRITES("switch writes"),
  /** {@code reverse-traffic}. */
  REVERSE("reverse traffic"),
  /** {@code workflow diff} again: a write switch after reverse traffic needs a fresh clean diff. */
  DIFF_AGAIN("diff again"),
  /** {@code switch-traffic --writes} again. */
  SWITCH_WRITES_AGAIN("switch writes again"),
  /** {@code workflow complete}. */
  COMPLETE("complete");

  private final String label;

  LifecycleStep(String label) {
    this.label = label;
  }

  /** The step's name in the report. */
  String label() {
    return label;
  }
}
