package io.reshard.system;

import io.reshard.copier.Copier;
import io.reshard.copier.CopierConfig;
import io.reshard.copier.CopyListener;
import io.reshard.copier.CopySpec;
import io.reshard.copier.StreamCoverage;
import io.reshard.core.placement.TargetShard;
import io.reshard.core.rows.RowKey;
import io.reshard.router.JdbcEndpoint;
import io.reshard.router.KeyRange;
import io.reshard.router.VSchema;
import java.util.List;

/**
 * The copier in a process of its own, for {@link CopyKillResumeIT} to kill with SIGKILL mid-copy.
 * Prints {@code chunk <n>} on stdout after every committed chunk.
 *
 * <p>Arguments: database, workflow, table, vschema JSON, chunk rows, then {@code host:port} of the
 * source ({@code c0-}) and of the targets {@code c0-e0} and {@code e0-}.
 */
public final class CopyChildMain {
  private CopyChildMain() {}

  public static void main(String[] args) throws Exception {
    String database = args[0];
    String workflow = args[1];
    String table = args[2];
    VSchema vschema = VSchema.parse(args[3]);
    int chunkRows = Integer.parseInt(args[4]);
    CopySpec spec =
        new CopySpec(
            workflow,
            database,
            endpoint(args[5]),
            KeyRange.parse("c0-"),
            List.of(
                new TargetShard(KeyRange.parse("c0-e0"), endpoint(args[6])),
                new TargetShard(KeyRange.parse("e0-"), endpoint(args[7]))),
            List.of(table),
            vschema,
            "4-4-1");
    Copier.builder(spec)
        .config(
            CopierConfig.builder()
                .initialChunkRows(chunkRows)
                .minChunkRows(chunkRows)
                .maxChunkRows(chunkRows)
                .build())
        .coverage(StreamCoverage.staticSource())
        .listener(
            new CopyListener() {
              @Override
              public void chunkCommitted(String t, long chunk, int rows, RowKey lastKey) {
                System.out.println("chunk " + chunk);
                System.out.flush();
              }
            })
        .build()
        .run();
    System.out.println("done");
  }

  private static JdbcEndpoint endpoint(String hostPort) {
    return new JdbcEndpoint("jdbc:mariadb://" + hostPort + "/", "root", "");
  }
}
