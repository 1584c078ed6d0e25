package io.reshard.copier;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.core.placement.SplitFixture;
import io.reshard.router.VSchema;
import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Rows as large as the servers allow are copied exactly: three 30 MiB values (random bytes, so
 * nothing compresses them away) between small rows, with the default configuration, so that one
 * chunk holds several big rows and each big row is a statement of its own. The servers get {@code
 * max_allowed_packet} = 96 MiB for the test, as an operator moving such rows sets it.
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CopyBigRowsIT {
  private static final long PACKET = 96L << 20;
  private static final int BIG = 30 << 20;
  private static final Vindex HASH = Vindex.of(VindexType.HASH);
  private static final VSchema VSCHEMA =
      VSchema.parse(
          "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"}}, \"tables\":"
              + " {\"big\": {\"column_vindexes\": [{\"column\": \"id\", \"name\": \"hash\"}]}}}");

  private final SplitFixture fx;
  private final Map<ClusterDescriptor.Server, Long> packets = new LinkedHashMap<>();

  CopyBigRowsIT(TestCluster cluster) {
    fx = new SplitFixture(cluster);
  }

  @AfterAll
  void restorePackets() throws Exception {
    for (Map.Entry<ClusterDescriptor.Server, Long> e : packets.entrySet()) {
      fx.cluster.execute(e.getKey(), "SET GLOBAL max_allowed_packet = " + e.getValue());
    }
  }

  @Test
  void threeThirtyMebibyteRowsAmongSmallOnesAreCopiedExactly() throws Exception {
    for (ClusterDescriptor.Server s : fx.all()) {
      packets.put(s, fx.number(s, "SELECT @@GLOBAL.max_allowed_packet"));
      fx.cluster.execute(s, "SET GLOBAL max_allowed_packet = " + PACKET);
    }
    fx.everywhere("CREATE TABLE big (id BIGINT PRIMARY KEY, body LONGBLOB) ENGINE=InnoDB");
    Random random = new Random(15);
    int inserted = 0;
    try (Connection c = fx.cluster.connect(fx.source);
        PreparedStatement ps = c.prepareStatement("INSERT INTO big VALUES (?, ?)")) {
      for (long id = 1; inserted < 12; id++) {
        if (!SplitFixture.SOURCE_RANGE.contains(HASH.keyspaceId(id))) {
          continue;
        }
        byte[] body = new byte[inserted % 4 == 1 && inserted < 12 ? BIG : 100];
        random.nextBytes(body);
        ps.setLong(1, id);
        ps.setBytes(2, body);
        ps.executeUpdate();
        inserted++;
      }
    }
    Copier.builder(CopySpecs.split(fx, "bigrows", VSCHEMA, "big"))
        .coverage(StreamCoverage.staticSource())
        .build()
        .run();
    int[] found =
        fx.assertPlacedExactly(
            "SELECT id, LENGTH(body), MD5(body) FROM big",
            id -> SplitFixture.targetOf(HASH.keyspaceId(Long.parseLong(id))));
    assertEquals(12, found[0] + found[1]);
    assertEquals(3, bigRowsOnTargets(), "the three 30 MiB rows");
  }

  private long bigRowsOnTargets() throws Exception {
    long n = 0;
    for (ClusterDescriptor.Server t : fx.targets) {
      try (Connection c = fx.cluster.connect(t);
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM big WHERE LENGTH(body) = " + BIG)) {
        rs.next();
        n += rs.getLong(1);
      }
    }
    return n;
  }
}
