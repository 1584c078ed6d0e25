package io.reshard.bench;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.cluster.ClusterException;
import io.reshard.cluster.ClusterSpec;
import io.reshard.cluster.FreePorts;
import io.reshard.cluster.LocalCluster;
import io.reshard.cluster.SmokeCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Measures how long a fresh local cluster takes, from nothing (no datadir, no Kafka storage) to
 * every MariaDB server answering a SQL query and the broker committing a transactional produce;
 * then how long {@code down} takes. Each run uses a new directory and free ports, and the figures
 * are wall-clock seconds on this machine.
 */
public final class StartupBenchmark {

  private StartupBenchmark() {}

  /**
   * One run's figures, in seconds.
   *
   * @param clusterUp {@link LocalCluster#up} until it returned (every server and the broker ready)
   * @param firstTransaction from then until a SQL query on every server and a committed Kafka
   *     transaction (its first {@code initTransactions} creates the transaction log)
   * @param total {@code clusterUp + firstTransaction}
   * @param down {@link LocalCluster#down}
   */
  public record Run(double clusterUp, double firstTransaction, double total, double down) {}

  /**
   * Runs the benchmark {@code runs} times with {@code servers} MariaDB servers.
   *
   * @param workDir where each run's cluster directory is created (and left, for inspection)
   * @param progress receives a line per run
   */
  public static List<Run> run(Path workDir, int servers, int runs, Consumer<String> progress)
      throws IOException {
    List<Run> result = new ArrayList<>();
    for (int i = 1; i <= runs; i++) {
      Path dir = Files.createTempDirectory(Files.createDirectories(workDir), "startup-");
      ClusterSpec spec =
          new ClusterSpec(
              dir, servers, 0, FreePorts.block(27306, servers), FreePorts.block(29892, 2));
      long t0 = System.nanoTime();
      ClusterDescriptor d = LocalCluster.up(spec, line -> {});
      long t1 = System.nanoTime();
      try {
        queryEveryServer(d);
        commitOneTransaction(d.kafka().bootstrap());
      } finally {
        long t2 = System.nanoTime();
        LocalCluster.down(dir);
        long t3 = System.nanoTime();
        Run r = new Run(secs(t1 - t0), secs(t2 - t1), secs(t2 - t0), secs(t3 - t2));
        result.add(r);
        progress.accept(
            String.format(
                "run %d: cluster up %.2f s, first SQL query on all + first Kafka transaction %.2f s,"
                    + " total %.2f s; down %.2f s",
                i, r.clusterUp(), r.firstTransaction(), r.total(), r.down()));
      }
    }
    return result;
  }

  private static double secs(long nanos) {
    return nanos / 1e9;
  }

  private static void queryEveryServer(ClusterDescriptor d) {
    for (ClusterDescriptor.Server s : d.mariadb()) {
      try (Connection c = DriverManager.getConnection(s.jdbcUrl(""), s.user(), "");
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT @@server_id")) {
        if (!rs.next() || rs.getInt(1) != s.serverId()) {
          throw new ClusterException(
              ClusterException.Kind.OTHER, s.name() + " has the wrong server_id");
        }
      } catch (SQLException e) {
        throw new ClusterException(
            ClusterException.Kind.OTHER, s.name() + ": " + e.getMessage(), e);
      }
    }
  }

  private static void commitOneTransaction(String bootstrap) {
    String topic = "startup-" + UUID.randomUUID();
    try (Admin admin =
            Admin.create(java.util.Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
        KafkaProducer<String, String> producer =
            new KafkaProducer<>(SmokeCheck.producerProps(bootstrap))) {
      admin
          .createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
          .all()
          .get(60, TimeUnit.SECONDS);
      producer.initTransactions();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, "k", "v"));
      producer.commitTransaction();
    } catch (Exception e) {
      throw new ClusterException(
          ClusterException.Kind.OTHER, "Kafka at " + bootstrap + ": " + e, e);
    }
  }
}
