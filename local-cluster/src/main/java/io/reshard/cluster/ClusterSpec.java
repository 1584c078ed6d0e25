package io.reshard.cluster;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@link LocalCluster#up} should start: {@code shards + spares} servers of one {@link Flavor}
 * on consecutive ports from {@code mariadbBasePort}, and one Kafka broker whose client listener is
 * {@code kafkaPort} and whose controller listener is {@code kafkaPort + 1}.
 *
 * <p>Server {@code i} (1-based, shards first) listens on {@code mariadbBasePort + i - 1} and has
 * {@code server_id = i} and {@code gtid_domain_id = i}, so its GTIDs read {@code i-i-seq}.
 *
 * @param dir the cluster directory; everything the cluster writes stays under it (sockets too,
 *     unless the path would be too long for a unix socket)
 * @param shards how many servers have the role {@code shard} (at least 1)
 * @param spares how many servers have the role {@code spare} (at least 0)
 * @param mariadbBasePort the first MariaDB port
 * @param kafkaPort the broker's client port; the controller listens on the next port
 * @param flavor which server program every server runs (null: {@link Flavor#MARIADB})
 */
public record ClusterSpec(
    Path dir, int shards, int spares, int mariadbBasePort, int kafkaPort, Flavor flavor) {

  /** Default first MariaDB port; the system's own MariaDB keeps 3306. */
  public static final int DEFAULT_MARIADB_BASE_PORT = 13306;

  /** Default Kafka client port (controller on 19093); Kafka's usual 9092 is left free. */
  public static final int DEFAULT_KAFKA_PORT = 19092;

  /** Validates every field at once and reports all problems in one exception. */
  public ClusterSpec {
    List<String> problems = new ArrayList<>();
    if (dir == null || dir.toString().isBlank()) {
      problems.add("the cluster directory is missing (give --dir DIR)");
    }
    if (shards < 1) {
      problems.add("--shards must be at least 1, got " + shards);
    }
    if (spares < 0) {
      problems.add("--spares must be 0 or more, got " + spares);
    }
    if (shards + spares > 64) {
      problems.add("at most 64 servers fit on one machine here, got " + (shards + spares));
    }
    if (mariadbBasePort < 1024 || mariadbBasePort + shards + spares - 1 > 65535) {
      problems.add("MariaDB ports must lie in 1024..65535, got base port " + mariadbBasePort);
    }
    if (kafkaPort < 1024 || kafkaPort + 1 > 65535) {
      problems.add("the Kafka port must lie in 1024..65534, got " + kafkaPort);
    }
    int first = mariadbBasePort;
    int last = mariadbBasePort + shards + spares - 1;
    if (kafkaPort + 1 >= first && kafkaPort <= last) {
      problems.add(
          "the Kafka ports "
              + kafkaPort
              + "-"
              + (kafkaPort + 1)
              + " overlap the MariaDB ports "
              + first
              + "-"
              + last);
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("invalid cluster spec: " + String.join("; ", problems));
    }
    dir = dir.toAbsolutePath().normalize();
    flavor = flavor == null ? Flavor.MARIADB : flavor;
  }

  /** A spec of MariaDB servers. */
  public ClusterSpec(Path dir, int shards, int spares, int mariadbBasePort, int kafkaPort) {
    this(dir, shards, spares, mariadbBasePort, kafkaPort, Flavor.MARIADB);
  }

  /** A spec with the default ports. */
  public static ClusterSpec withDefaultPorts(Path dir, int shards, int spares) {
    return new ClusterSpec(dir, shards, spares, DEFAULT_MARIADB_BASE_PORT, DEFAULT_KAFKA_PORT);
  }

  /** How many MariaDB servers the cluster has. */
  public int servers() {
    return shards + spares;
  }
}
