package io.reshard.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cluster.ClusterDescriptor;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(LocalClusterExtension.class)
class LocalClusterExtensionIT {
  private final TestCluster cluster;

  LocalClusterExtensionIT(TestCluster cluster) {
    this.cluster = cluster;
  }

  @Test
  void everyServerHasThisClassesDatabase() throws Exception {
    assertEquals(4, cluster.shards().size());
    assertEquals(2, cluster.spares().size());
    for (ClusterDescriptor.Server s : cluster.descriptor().mariadb()) {
      try (Connection c = cluster.connect(s);
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT DATABASE(), @@server_id")) {
        assertTrue(rs.next());
        assertEquals(cluster.database(), rs.getString(1));
        assertEquals(s.serverId(), rs.getInt(2));
      }
    }
  }

  @Test
  void databaseNamesAreShortAndDistinctPerClass() {
    String a = TestCluster.databaseNameFor(LocalClusterExtensionIT.class, 1);
    String b = TestCluster.databaseNameFor(LocalClusterExtensionIT.class, 2);
    assertTrue(a.matches("t_[a-z0-9_]+_1"), a);
    assertTrue(!a.equals(b));
    String longName =
        TestCluster.databaseNameFor(
            VeryLongNameeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee.class, 12);
    assertTrue(longName.length() <= 64, longName);
    assertTrue(longName.endsWith("_12"), longName);
  }

  /** A nested class is part of its enclosing class: it shares the enclosing class's database. */
  @Nested
  @ExtendWith(LocalClusterExtension.class)
  class Another {
    @Test
    void sharesTheDatabaseOfItsEnclosingClass(TestCluster other) {
      assertEquals(cluster.descriptor(), other.descriptor());
      assertEquals(cluster.database(), other.database());
    }
  }

  static class VeryLongNameeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee {}
}
