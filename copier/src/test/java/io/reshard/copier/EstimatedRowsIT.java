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
  void theRowsAreCountedWhereTheServersEstimateIsOff(TestCluster cluster) throws Exception {
    ClusterDescriptor.Server s = cluster.shards().get(0);
    cluster.execute(
        s,
        "CREATE TABLE counted (id INT PRIMARY KEY) ENGINE=InnoDB",
        "INSERT INTO counted SELECT seq FROM seq_1_to_1000");
    // 3,000 rows inserted and not committed: the server's estimate counts them, a copy would not
    try (Connection open = cluster.connect(s);
        Connection c = cluster.connect(s)) {
      open.setAutoCommit(false);
      try (Statement st = open.createStatement()) {
        st.execute("INSERT INTO counted SELECT seq FROM seq_1001_to_4000");
      }
      try (Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery(
                  "SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = '"
                      + cluster.database()
                      + "' AND TABLE_NAME = 'counted'")) {
        rs.next();
        long serverEstimate = rs.getLong(1);
        org.junit.jupiter.api.Assertions.assertTrue(
            serverEstimate > 2000, "the server's estimate is off: " + serverEstimate);
      }
      assertEquals(1000, TableSchemaReader.estimatedRows(c, cluster.database(), "counted"));
      assertEquals(0, TableSchemaReader.estimatedRows(c, cluster.database(), "no_such_table"));
      open.rollback();
    }
  }
}
