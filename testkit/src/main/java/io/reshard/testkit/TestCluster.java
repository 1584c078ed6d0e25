package io.reshard.testkit;

import io.reshard.cluster.ClusterDescriptor;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;

/**
 * What one test class sees of the shared local cluster: the servers, the Kafka bootstrap address, a
 * database name that only this class uses (created on every server before the class, dropped after
 * it), and a Kafka topic prefix that only this class uses.
 *
 * <p>Thread-safe; connections it hands out are the caller's to close.
 */
public final class TestCluster {
  private final Path dir;
  private final ClusterDescriptor descriptor;
  private final String database;

  TestCluster(Path dir, ClusterDescriptor descriptor, String database) {
    this.dir = dir;
    this.descriptor = descriptor;
    this.database = database;
  }

  /** A database name for a test class: {@code t_<class>_<n>}, lower case, at most 64 chars. */
  static String databaseNameFor(Class<?> testClass, int n) {
    String base = testClass.getSimpleName().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    String suffix = "_" + n;
    int room = 64 - 2 - suffix.length();
    return "t_" + (base.length() > room ? base.substring(0, room) : base) + suffix;
  }

  /** The cluster directory (holds {@code cluster.json} and every server's files). */
  public Path dir() {
    return dir;
  }

  /** The cluster's descriptor, as {@code cluster.json} has it. */
  public ClusterDescriptor descriptor() {
    return descriptor;
  }

  /** The flavor of this cluster's servers. */
  public io.reshard.cluster.Flavor flavor() {
    return descriptor.mariadb().get(0).flavorOrDefault();
  }

  /** The servers with the role shard, in order. */
  public List<ClusterDescriptor.Server> shards() {
    return descriptor.shards();
  }

  /** The servers with the role spare, in order. */
  public List<ClusterDescriptor.Server> spares() {
    return descriptor.spares();
  }

  /** This class's database, present on every server. */
  public String database() {
    return database;
  }

  /** A topic prefix that only this class uses, e.g. {@code t_routerit_3}. */
  public String topicPrefix() {
    return database;
  }

  /** The Kafka {@code bootstrap.servers} value. */
  public String bootstrap() {
    return descriptor.kafka().bootstrap();
  }

  /** A JDBC URL for this class's database on {@code server}. */
  public String jdbcUrl(ClusterDescriptor.Server server) {
    return server.jdbcUrl(database);
  }

  /** A new connection as root to this class's database on {@code server}. */
  public Connection connect(ClusterDescriptor.Server server) throws SQLException {
    return DriverManager.getConnection(jdbcUrl(server), server.user(), "");
  }

  /** Runs {@code statements} in this class's database on {@code server}. */
  public void execute(ClusterDescriptor.Server server, String... statements) throws SQLException {
    try (Connection c = connect(server);
        Statement s = c.createStatement()) {
      for (String sql : statements) {
        s.execute(sql);
      }
    }
  }

  /**
   * Sets one configuration entry of a Kafka topic (e.g. {@code max.message.bytes}) and returns once
   * the broker describes the topic with the new value.
   *
   * @throws IllegalStateException if the broker refuses it or does not show it within 30 s
   */
  public void setTopicConfig(String topic, String key, String value) throws InterruptedException {
    ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()))) {
      AlterConfigOp set = new AlterConfigOp(new ConfigEntry(key, value), AlterConfigOp.OpType.SET);
      admin.incrementalAlterConfigs(Map.of(r, List.of(set))).all().get(30, TimeUnit.SECONDS);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!value.equals(
          admin
              .describeConfigs(List.of(r))
              .all()
              .get(30, TimeUnit.SECONDS)
              .get(r)
              .get(key)
              .value())) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(topic + ": " + key + "=" + value + " never showed");
        }
        Thread.sleep(100);
      }
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(topic + ": setting " + key + "=" + value + ": " + e, e);
    }
  }

  void createDatabases() {
    forEachServer("CREATE DATABASE IF NOT EXISTS `" + database + "`");
  }

  void dropDatabases() {
    forEachServer("DROP DATABASE IF EXISTS `" + database + "`");
  }

  private void forEachServer(String sql) {
    for (ClusterDescriptor.Server s : descriptor.mariadb()) {
      try (Connection c = DriverManager.getConnection(s.jdbcUrl(""), s.user(), "");
          Statement st = c.createStatement()) {
        st.execute(sql);
      } catch (SQLException e) {
        throw new IllegalStateException(s.name() + ": " + sql + ": " + e.getMessage(), e);
      }
    }
  }
}
