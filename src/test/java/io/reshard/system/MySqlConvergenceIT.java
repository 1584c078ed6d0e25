package io.reshard.system;

import io.reshard.cluster.Flavor;
import io.reshard.testkit.UseFlavor;

/**
 * {@link ConvergenceIT} on MySQL 8.0.31 servers: the copier, the capture of MySQL's binlog, the
 * appliers and the differ converge under the same seeded random writer (inserts, updates, sharding
 * and primary key changes, deletes, unique swaps) from the MySQL cluster's one shard into its two
 * spares; the differ at one position and plain SQL find no difference. A third of the rows, to keep
 * the suite under 30 minutes: the writes during the copy, not the rows before it, are what can go
 * wrong.
 */
@UseFlavor(Flavor.MYSQL)
class MySqlConvergenceIT extends ConvergenceIT {
  @Override
  int preloadRows() {
    return 1000;
  }
}
