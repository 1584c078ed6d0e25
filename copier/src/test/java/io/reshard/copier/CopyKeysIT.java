package io.reshard.copier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.core.placement.SplitFixture;
import io.reshard.core.rows.RowKey;
import io.reshard.router.VSchema;
import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Key shapes, copied with chunks of 1 to 3 rows so that chunk boundaries fall everywhere: a
 * composite key (boundaries inside runs of equal first columns), negative and zero keys, a VARCHAR
 * key in a case- and accent-insensitive collation (a binary comparison would skip or repeat rows),
 * and a BINARY(16) key with trailing zero bytes. Every source row must be on exactly its target.
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CopyKeysIT {
  static final Vindex HASH = Vindex.of(VindexType.HASH);
  static final Vindex XXHASH = Vindex.of(VindexType.XXHASH);
  static final Vindex MD5 = Vindex.of(VindexType.BINARY_MD5);
  static final HexFormat HEX = HexFormat.of();

  static final VSchema VSCHEMA =
      VSchema.parse(
          "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"},"
              + " \"xxhash\": {\"type\": \"xxhash\"}, \"md5\": {\"type\": \"binary_md5\"}},"
              + " \"tables\": {"
              + " \"composite\": {\"column_vindexes\": [{\"column\": \"a\", \"name\": \"hash\"}]},"
              + " \"signed\": {\"column_vindexes\": [{\"column\": \"id\", \"name\": \"hash\"}]},"
              + " \"names\": {\"column_vindexes\": [{\"column\": \"name\", \"name\": \"xxhash\"}]},"
              + " \"blobs\": {\"column_vindexes\": [{\"column\": \"k\", \"name\": \"md5\"}]}}}");

  private final SplitFixture fx;
  private final List<String> chunkKeys = Collections.synchronizedList(new ArrayList<>());

  CopyKeysIT(TestCluster cluster) {
    fx = new SplitFixture(cluster);
  }

  @BeforeAll
  void loadAndCopy() throws Exception {
    fx.everywhere(
        "CREATE TABLE composite (a BIGINT NOT NULL, b VARCHAR(20) COLLATE utf8mb4_general_ci NOT"
            + " NULL, v INT, PRIMARY KEY (a, b)) ENGINE=InnoDB",
        "CREATE TABLE signed (id BIGINT NOT NULL PRIMARY KEY, v INT) ENGINE=InnoDB",
        "CREATE TABLE names (name VARCHAR(30) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci"
            + " NOT NULL PRIMARY KEY, v INT) ENGINE=InnoDB",
        "CREATE TABLE blobs (k BINARY(16) NOT NULL PRIMARY KEY, v INT) ENGINE=InnoDB");
    List<String> composite = new ArrayList<>();
    List<Long> as =
        new ArrayList<>(List.of(-3L, -1L, 0L, 1L, 2L, 7L, Long.MIN_VALUE, Long.MAX_VALUE));
    for (long from = -1000; as.size() < 12; from++) {
      if (SplitFixture.SOURCE_RANGE.contains(HASH.keyspaceId(from))) {
        as.add(from); // more first-column values in the source range, negative ones
      }
    }
    for (long a : as) {
      for (String b : List.of("a", "B", "c", "é", "Z", "zz", "Öl")) {
        composite.add("(" + a + ", '" + b + "', 1)");
      }
    }
    List<String> signed = new ArrayList<>();
    for (long id = -40; id <= 40; id++) {
      signed.add("(" + id + ", 1)");
    }
    signed.add("(" + Long.MIN_VALUE + ", 1)");
    signed.add("(" + Long.MAX_VALUE + ", 1)");
    List<String> names = new ArrayList<>();
    for (String n :
        List.of(
            "apple",
            "Banana",
            "cherry",
            "Zebra",
            "zoo",
            "Äpfel",
            "étoile",
            "Eagle",
            "b",
            "B2",
            "a b",
            "a",
            "ab",
            "Ω",
            "日本",
            "😀",
            "café",
            "Mañana",
            "ß",
            "Ångström",
            "Öl",
            "o")) {
      names.add("('" + n + "', 1)");
    }
    List<String> blobs = new ArrayList<>();
    Random random = new Random(3);
    for (int i = 0; i < 40; i++) {
      byte[] k = new byte[16];
      random.nextBytes(k);
      int zeros = i % 16;
      for (int z = 0; z < zeros; z++) {
        k[15 - z] = 0;
      }
      blobs.add("(X'" + HEX.formatHex(k) + "', " + i + ")");
    }
    blobs.add("(X'00000000000000000000000000000000', -1)");
    blobs.add("(X'ffffffffffffffffffffffffffffffff', -2)");
    blobs.add("(X'01', -3)"); // padded to 16 bytes by BINARY(16)
    fx.loose(
        fx.source,
        "INSERT INTO composite VALUES " + String.join(", ", composite),
        "INSERT INTO signed VALUES " + String.join(", ", signed),
        "INSERT INTO names VALUES " + String.join(", ", names),
        "INSERT INTO blobs VALUES " + String.join(", ", blobs));

    CopierConfig config =
        CopierConfig.builder()
            .initialChunkRows(2)
            .minChunkRows(1)
            .maxChunkRows(3)
            .chunkTargetDuration(java.time.Duration.ofMillis(1))
            .build();
    Copier.builder(CopySpecs.split(fx, "keys", VSCHEMA, "composite", "signed", "names", "blobs"))
        .config(config)
        .coverage(StreamCoverage.staticSource())
        .listener(
            new CopyListener() {
              @Override
              public void chunkCommitted(String table, long chunk, int rows, RowKey lastKey) {
                if (rows > 0) {
                  chunkKeys.add(table + " " + lastKey);
                }
              }
            })
        .build()
        .run();
  }

  @Test
  void aCompositeKeyWithNegativeAndZeroPartsIsCopiedOnceEach() throws Exception {
    int[] found =
        fx.assertPlacedExactly(
            "SELECT CONCAT(a, '/', HEX(b)), v FROM composite",
            key -> SplitFixture.targetOf(HASH.keyspaceId(Long.parseLong(key.split("/")[0]))));
    long inRange =
        fx.rows(fx.source, "SELECT CONCAT(a, '/', HEX(b)), v FROM composite").keySet().stream()
            .filter(
                k ->
                    SplitFixture.SOURCE_RANGE.contains(
                        HASH.keyspaceId(Long.parseLong(k.split("/")[0]))))
            .count();
    assertTrue(inRange >= 4 * 7, "rows in the source range: " + inRange);
    assertEquals(inRange, found[0] + found[1]);
    assertTrue(chunkKeys.stream().filter(k -> k.startsWith("composite")).count() >= 12 * 7 / 3);
  }

  @Test
  void negativeZeroAndExtremeKeysAreCopiedOnceEach() throws Exception {
    int[] found =
        fx.assertPlacedExactly(
            "SELECT id, v FROM signed",
            id -> SplitFixture.targetOf(HASH.keyspaceId(Long.parseLong(id))));
    assertEquals(81 + 2 - outside("signed"), found[0] + found[1]);
  }

  @Test
  void varcharKeysFollowTheColumnsCollationAcrossChunks() throws Exception {
    int[] found =
        fx.assertPlacedExactly(
            "SELECT HEX(name), v FROM names",
            hex -> SplitFixture.targetOf(XXHASH.keyspaceId(HEX.parseHex(hex))));
    assertEquals(22 - outside("names"), found[0] + found[1]);
    // the chunks' last keys follow the server's ORDER BY (the collation's order), strictly
    List<String> serverOrder =
        new ArrayList<>(fx.rows(fx.source, "SELECT name, v FROM names ORDER BY name").keySet());
    List<Integer> positions =
        chunkKeys.stream()
            .filter(k -> k.startsWith("names ["))
            .map(k -> serverOrder.indexOf(k.substring(7, k.length() - 1)))
            .toList();
    assertTrue(positions.size() >= 22 / 3, positions.toString());
    for (int i = 1; i < positions.size(); i++) {
      assertTrue(
          positions.get(i) > positions.get(i - 1), "chunk keys in collation order: " + positions);
    }
    assertTrue(
        serverOrder.indexOf("Zebra") > serverOrder.indexOf("cherry"), serverOrder.toString());
  }

  @Test
  void binaryKeysWithTrailingZeroBytesAreCopiedOnceEach() throws Exception {
    int[] found =
        fx.assertPlacedExactly(
            "SELECT HEX(k), v FROM blobs",
            hex -> SplitFixture.targetOf(MD5.keyspaceId(HEX.parseHex(hex))));
    assertEquals(43 - outside("blobs"), found[0] + found[1]);
  }

  /** Source rows whose keyspace id is outside the source range (they stay on no target). */
  private int outside(String table) throws Exception {
    String sql =
        switch (table) {
          case "signed" -> "SELECT id, v FROM signed";
          case "names" -> "SELECT HEX(name), v FROM names";
          default -> "SELECT HEX(k), v FROM blobs";
        };
    int n = 0;
    for (String key : fx.rows(fx.source, sql).keySet()) {
      var ksid =
          switch (table) {
            case "signed" -> HASH.keyspaceId(Long.parseLong(key));
            case "names" -> XXHASH.keyspaceId(HEX.parseHex(key));
            default -> MD5.keyspaceId(HEX.parseHex(key));
          };
      if (!SplitFixture.SOURCE_RANGE.contains(ksid)) {
        n++;
      }
    }
    return n;
  }
}
