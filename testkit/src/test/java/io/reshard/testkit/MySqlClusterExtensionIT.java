package io.reshard.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.cluster.Flavor;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A class that asks for MySQL gets the JVM's MySQL cluster, with its database on every server. */
@ExtendWith(LocalClusterExtension.class)
@UseFlavor(Flavor.MYSQL)
class MySqlClusterExtensionIT {
  private final TestCluster cluster;

  MySqlClusterExtensionIT(TestCluster cluster) {
    this.cluster = cluster;
  }

  @Test
  void everyServerIsMySqlWithThisClassesDatabase() throws Exception {
    assertEquals(Flavor.MYSQL, cluster.flavor());
    assertEquals(1, cluster.shards().size());
    assertEquals(2, cluster.spares().size());
    for (ClusterDescriptor.Server s : cluster.descriptor().mariadb()) {
      try (Connection c = cluster.connect(s);
          Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery("SELECT DATABASE(), @@server_id, @@version, @@gtid_mode")) {
        assertTrue(rs.next());
        assertEquals(cluster.database(), rs.getString(1));
        assertEquals(s.serverId(), rs.getInt(2));
        assertEquals("8.0.31", rs.getString(3));
        assertEquals("ON", rs.getString(4));
      }
    }
  }

  @Test
  void theFlavorComesFromTheAnnotationOrTheProperty() {
    assertEquals(Flavor.MYSQL, LocalClusterExtension.flavorOf(MySqlClusterExtensionIT.class));
    assertEquals(Flavor.MARIADB, LocalClusterExtension.flavorOf(LocalClusterExtensionIT.class));
  }
}
