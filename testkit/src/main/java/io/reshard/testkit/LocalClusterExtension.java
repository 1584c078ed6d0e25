package io.reshard.testkit;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.cluster.ClusterException;
import io.reshard.cluster.ClusterSpec;
import io.reshard.cluster.Flavor;
import io.reshard.cluster.FreePorts;
import io.reshard.cluster.LocalCluster;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension that starts one local cluster per test JVM and server {@link Flavor}, on the
 * first test class that asks for it, and stops it when the run ends; every test class then gets a
 * {@link TestCluster} (as a constructor or method parameter) with its own database on every server
 * and its own Kafka topic prefix, so the suite pays the start-up once and classes never see each
 * other's rows.
 *
 * <p>Shape, from system properties: {@code reshard.test.shards} (default 4) shards and {@code
 * reshard.test.spares} (default 2) spares, on free ports in a band of their own (MariaDB from
 * 30000, Kafka from 32000, below the ephemeral range; other tests and benchmarks use fixed bases
 * under 30000), under {@code reshard.test.root} (default {@code target/test-clusters}). A MySQL
 * cluster ({@link UseFlavor}) is smaller, since a MySQL server takes 10-30 s to initialise: {@code
 * reshard.test.mysql.shards} (default 1) and {@code reshard.test.mysql.spares} (default 2), enough
 * for a split, on ports 8 above the MariaDB cluster's in the same bands (both fit side by side).
 *
 * <p>Use: {@code @ExtendWith(LocalClusterExtension.class)} on the class, and
 * {@code @UseFlavor(Flavor.MYSQL)} for MySQL servers. Thread-safe.
 */
public final class LocalClusterExtension
    implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(LocalClusterExtension.class);
  private static final AtomicInteger CLASS_COUNTER = new AtomicInteger();

  @Override
  public void beforeAll(ExtensionContext context) {
    clusterFor(context);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    TestCluster cluster = context.getStore(NAMESPACE).remove(TestCluster.class, TestCluster.class);
    if (cluster != null) {
      cluster.dropDatabases();
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == TestCluster.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return clusterFor(context);
  }

  /**
   * The test class's cluster view, created on first use: in {@code beforeAll}, or earlier when a
   * {@code PER_CLASS} test instance asks for it in its constructor.
   */
  private static TestCluster clusterFor(ExtensionContext context) {
    ExtensionContext classContext = context;
    while (classContext.getTestMethod().isPresent() && classContext.getParent().isPresent()) {
      classContext = classContext.getParent().get();
    }
    Class<?> testClass = classContext.getRequiredTestClass();
    Flavor flavor = flavorOf(testClass);
    return classContext
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(
            TestCluster.class,
            k -> {
              SharedCluster shared =
                  context
                      .getRoot()
                      .getStore(NAMESPACE)
                      .getOrComputeIfAbsent(
                          flavor, x -> SharedCluster.start(flavor), SharedCluster.class);
              TestCluster cluster =
                  new TestCluster(
                      shared.dir,
                      shared.descriptor,
                      TestCluster.databaseNameFor(testClass, CLASS_COUNTER.incrementAndGet()));
              cluster.createDatabases();
              return cluster;
            },
            TestCluster.class);
  }

  /**
   * The flavor a test class asks for: its own or an enclosing class's {@link UseFlavor}, else the
   * system property {@code reshard.test.flavor}.
   */
  static Flavor flavorOf(Class<?> testClass) {
    for (Class<?> c = testClass; c != null; c = c.getEnclosingClass()) {
      UseFlavor use = c.getAnnotation(UseFlavor.class);
      if (use != null) {
        return use.value();
      }
    }
    return Flavor.parse(System.getProperty("reshard.test.flavor"));
  }

  /** The cluster of one flavor of this test JVM; stopped when the root context closes. */
  static final class SharedCluster implements AutoCloseable {
    final Path dir;
    final ClusterDescriptor descriptor;

    private SharedCluster(Path dir, ClusterDescriptor descriptor) {
      this.dir = dir;
      this.descriptor = descriptor;
    }

    /**
     * Starts the cluster on free ports. Another process may take a port between the check and the
     * bind (several test runs on one machine), so a failed start is retried on other ports.
     */
    static SharedCluster start(Flavor flavor) {
      boolean mysql = flavor == Flavor.MYSQL;
      int shards =
          Integer.getInteger("reshard.test." + (mysql ? "mysql." : "") + "shards", mysql ? 1 : 4);
      int spares = Integer.getInteger("reshard.test." + (mysql ? "mysql." : "") + "spares", 2);
      int offset = mysql ? 8 : 0; // a MySQL cluster's ports sit beside the MariaDB cluster's
      Path root = Path.of(System.getProperty("reshard.test.root", "target/test-clusters"));
      long pid = ProcessHandle.current().pid();
      int slot = (int) (pid % 100); // concurrent runs start their port search apart
      ClusterException last = null;
      for (int attempt = 1; attempt <= 3; attempt++) {
        Path dir = root.resolve("run-" + pid + "-" + (mysql ? "mysql-" : "") + attempt);
        ClusterSpec spec =
            new ClusterSpec(
                dir,
                shards,
                spares,
                FreePorts.block(30000 + 16 * slot + offset + 1600 * (attempt - 1), shards + spares),
                FreePorts.block(32000 + 4 * slot + offset / 4 + 400 * (attempt - 1), 2),
                flavor);
        long t0 = System.nanoTime();
        try {
          ClusterDescriptor d =
              LocalCluster.up(spec, line -> System.err.println("[test cluster] " + line));
          System.err.printf(
              "[test cluster] %d %s servers and Kafka ready in %.1f s under %s%n",
              spec.servers(), flavor.id(), (System.nanoTime() - t0) / 1e9, spec.dir());
          return new SharedCluster(spec.dir(), d);
        } catch (ClusterException e) {
          System.err.println(
              "[test cluster] start attempt " + attempt + " failed: " + e.getMessage());
          last = e;
        }
      }
      throw last;
    }

    @Override
    public void close() {
      LocalCluster.down(dir).forEach(line -> System.err.println("[test cluster] " + line));
    }
  }
}
