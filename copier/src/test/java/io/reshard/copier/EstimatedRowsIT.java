package io.reshard.copier;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.core.schema.TableSchemaReader;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The copy's row estimate is the table's real row count where the server's statistics lag. */
@ExtendWith(LocalClusterExtension.class)
class EstimatedRowsIT {

  @Test
  void aTableWhoseStatisticsLagIsCountedInstead(TestCluster cluster) throws Exception {
    ClusterDescriptor.Server s = cluster.shards().get(0);
    // statistics never recalculated: TABLE_ROWS stays as it was when the table was empty
    cluster.execute(
        s,
        "CREATE TABLE stale (id INT PRIMARY KEY) ENGINE=InnoDB STATS_AUTO_RECALC=0",
        "ANALYZE TABLE stale",
        "INSERT INTO stale SELECT seq FROM seq_1_to_4900");
    try (Connection c = cluster.connect(s);
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = '"
                    + cluster.database()
                    + "' AND TABLE_NAME = 'stale'")) {
      rs.next();
      long serverEstimate = rs.getLong(1);
      org.junit.jupiter.api.Assertions.assertTrue(
          serverEstimate < 1000, "the server's estimate lags: " + serverEstimate);
      assertEquals(4900, TableSchemaReader.estimatedRows(c, cluster.database(), "stale"));
      assertEquals(0, TableSchemaReader.estimatedRows(c, cluster.database(), "no_such_table"));
    }
  }
}
