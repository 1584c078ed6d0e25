package io.reshard.bench.copydiff;

import io.reshard.cluster.ClusterDescriptor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Runs {@code pt-table-sync --print} from percona-toolkit (Debian package {@code percona-toolkit})
 * between two servers for the benchmark: it prints the statements that would make the second table
 * equal the first, one per differing row, and changes nothing.
 */
final class PtTableSync {
  private PtTableSync() {}

  /**
   * Compares {@code sourceDb.table} on {@code source} with {@code targetDb.table} on {@code
   * target}.
   *
   * @return what it printed, or null if the tool is not installed (a line says so)
   * @throws IllegalStateException if it fails
   */
  static String run(
      ClusterDescriptor.Server source,
      ClusterDescriptor.Server target,
      String sourceDb,
      String targetDb,
      String table)
      throws IOException, InterruptedException {
    Process which = new ProcessBuilder("bash", "-c", "command -v pt-table-sync").start();
    if (which.waitFor() != 0) {
      System.out.println(
          "pt-table-sync is not on PATH: its comparison is skipped"
              + " (Debian: apt-get install percona-toolkit)");
      return null;
    }
    List<String> command =
        List.of(
            "pt-table-sync", "--print", dsn(source, sourceDb, table), dsn(target, targetDb, table));
    Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int exit = p.waitFor();
    // 0: no difference; 2: differences found (and printed)
    if (exit != 0 && exit != 2) {
      throw new IllegalStateException("pt-table-sync failed: exit " + exit + "\n" + out);
    }
    return out;
  }

  private static String dsn(ClusterDescriptor.Server s, String db, String table) {
    return "h=127.0.0.1,P=" + s.port() + ",u=" + s.user() + ",D=" + db + ",t=" + table;
  }
}
