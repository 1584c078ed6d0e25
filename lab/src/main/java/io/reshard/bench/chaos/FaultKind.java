package io.reshard.bench.chaos;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The faults a chaos run injects, each with the name {@code --kinds} and the report use. What the
 * environment does afterwards is part of the fault, not of healing: a killed process is started
 * again on its data (the daemon by its supervisor, a server or the broker as {@code cluster up}
 * does, as an operator's restart policy would), a paused server is continued, a read lock is
 * released.
 */
enum FaultKind {
  /** kill -9 of the pipeline daemon; its supervisor starts it again. */
  DAEMON_KILL("daemon-kill", "daemon kill -9"),
  /** kill -9 of the source shard's server of the lifecycle; restarted on its data. */
  SOURCE_KILL("source-kill", "source kill -9"),
  /** kill -9 of one target shard's server; restarted on its data. */
  TARGET_KILL("target-kill", "target kill -9"),
  /** kill -9 of the Kafka broker; restarted on its data. */
  BROKER_KILL("broker-kill", "broker kill -9"),
  /** SIGSTOP of the source's or a target's server for longer than the timeouts, then SIGCONT. */
  SERVER_PAUSE("server-pause", "server SIGSTOP"),
  /** FLUSH TABLES WITH READ LOCK on a target, held for a while, then UNLOCK TABLES. */
  TARGET_READ_LOCK("target-read-lock", "target read lock");

  private final String wireName;
  private final String label;

  FaultKind(String wireName, String label) {
    this.wireName = wireName;
    this.label = label;
  }

  /** The name on the command line and in the JSON report, e.g. {@code daemon-kill}. */
  String wireName() {
    return wireName;
  }

  /** The name in the printed table, e.g. {@code daemon kill -9}. */
  String label() {
    return label;
  }

  /** The kind named {@code name} (its wire name, case-insensitive), or empty. */
  static Optional<FaultKind> fromWire(String name) {
    String n = name.strip().toLowerCase(Locale.ROOT);
    return Arrays.stream(values()).filter(k -> k.wireName.equals(n)).findFirst();
  }

  /** Every wire name, in declaration order. */
  static List<String> wireNames() {
    return Arrays.stream(values()).map(FaultKind::wireName).toList();
  }
}
