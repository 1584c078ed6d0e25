package io.reshard.core.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.core.rows.Row;
import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.TableRefusedException;
import io.reshard.core.schema.TableSchema;
import io.reshard.core.schema.TableSchemaReader;
import io.reshard.router.VSchema;
import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * One stored value of a sharding column, in the three forms the pipeline meets it: the copier's and
 * the differ's (the exact bytes of the server's text, as {@code exactSelectExpression} selects it),
 * apply's (a change image's value, as capture decodes it) and router-lib's (the value an
 * application passes). For every type a sharding column may have, every functional vindex must give
 * the three the same keyspace id (or refuse all three alike).
 */
class VindexInputTest {

  /** A column's value in its three forms. */
  record Case(ColumnDef column, String copyText, byte[] copyBytes, Object image, Object app) {
    static Case of(ColumnDef column, String copyText, Object image, Object app) {
      return new Case(column, copyText, null, image, app);
    }

    byte[] copy() {
      return copyBytes != null ? copyBytes : copyText.getBytes(StandardCharsets.UTF_8);
    }
  }

  static ColumnDef col(String name, String dataType, String columnType, String charset, int f) {
    return TableSchemaReader.column(
        name,
        dataType,
        columnType,
        charset,
        charset == null ? null : charset + "_general_ci",
        20,
        80,
        12,
        2,
        f,
        false,
        false);
  }

  static final ColumnDef ENUM = col("e", "enum", "enum('zeta','alpha','mid')", "utf8mb4", 0);
  static final ColumnDef SET = col("s", "set", "set('red','green','blue')", "utf8mb4", 0);

  static List<Case> cases() {
    ColumnDef latin1 = col("l", "varchar", "varchar(20)", "latin1", 0);
    return List.of(
        Case.of(col("i", "bigint", "bigint(20)", null, 0), "42", 42L, 42L),
        Case.of(col("i", "bigint", "bigint(20)", null, 0), "-7", -7L, -7L),
        Case.of(
            col("u", "bigint", "bigint(20) unsigned", null, 0),
            "18446744073709551615",
            new BigInteger("18446744073709551615"),
            new BigInteger("18446744073709551615")),
        Case.of(col("y", "year", "year(4)", null, 0), "2024", 2024, 2024L),
        Case.of(col("y", "year", "year(4)", null, 0), "0000", 0, 0L),
        Case.of(col("v", "varchar", "varchar(20)", "utf8mb4", 0), "café", "café", "café"),
        // a latin1 column stores é as 0xE9; router-lib hashes a String as UTF-8
        new Case(latin1, null, new byte[] {'c', 'a', 'f', (byte) 0xE9}, "café", "café"),
        Case.of(ENUM, "2", "alpha", "alpha"),
        Case.of(ENUM, "1", "zeta", "zeta"),
        Case.of(ENUM, "0", "", ""), // the error value
        Case.of(SET, "5", "red,blue", "red,blue"),
        Case.of(SET, "0", "", ""),
        Case.of(col("d", "decimal", "decimal(12,2)", null, 0), "-12.50", "-12.50", "-12.50"),
        Case.of(col("d", "date", "date", null, 0), "2024-01-02", "2024-01-02", "2024-01-02"),
        Case.of(
            col("t", "datetime", "datetime(3)", null, 3),
            "2024-01-02 03:04:05.120",
            "2024-01-02 03:04:05.120",
            "2024-01-02 03:04:05.120"),
        Case.of(
            col("t", "timestamp", "timestamp", null, 0),
            "2024-01-02 03:04:05",
            "2024-01-02 03:04:05",
            "2024-01-02 03:04:05"),
        Case.of(col("t", "time", "time", null, 0), "-838:59:59", "-838:59:59", "-838:59:59"),
        new Case(
            col("b", "varbinary", "varbinary(8)", null, 0),
            null,
            new byte[] {0, (byte) 0xff, 7},
            new byte[] {0, (byte) 0xff, 7},
            new byte[] {0, (byte) 0xff, 7}),
        new Case(
            col("b", "bit", "bit(10)", null, 0),
            null,
            new byte[] {2, 5},
            new byte[] {2, 5},
            new byte[] {2, 5}));
  }

  @Test
  void copyApplyAndRouterGiveEveryVindexTheSameKeyspaceId() {
    int mapped = 0;
    for (Case c : cases()) {
      for (VindexType type : VindexType.values()) {
        if (!type.isFunctional()) {
          continue;
        }
        ShardingKey key = ShardingKey.of(vschema(type, c.column().name()), table(c.column()));
        String copy = map(() -> key.keyspaceId(new Row(new byte[][] {c.copy()})).hex());
        String apply = map(() -> key.keyspaceIdOf(Map.of(c.column().name(), c.image())).hex());
        String router = map(() -> Vindex.of(type).keyspaceId(c.app()).hex());
        String what = type + " on " + c.column().columnType() + " " + c.app();
        assertEquals(router, copy, "copy vs router, " + what);
        assertEquals(router, apply, "apply vs router, " + what);
        mapped += router.contains("Exception") ? 0 : 1;
      }
    }
    assertTrue(mapped > 40, "most cases map: " + mapped);
  }

  @Test
  void anEnumIsPlacedByItsLabelNotByTheIndexTheCopyReads() {
    ShardingKey key = ShardingKey.of(vschema(VindexType.XXHASH, "e"), table(ENUM));
    assertEquals(
        Vindex.of(VindexType.XXHASH).keyspaceId("alpha"),
        key.keyspaceId(new Row(new byte[][] {"2".getBytes(StandardCharsets.US_ASCII)})));
  }

  @Test
  void hashMapsYearAsTheIntegerItIs() {
    ColumnDef year = col("y", "year", "year(4)", null, 0);
    ShardingKey key = ShardingKey.of(vschema(VindexType.HASH, "y"), table(year));
    assertEquals(
        Vindex.of(VindexType.HASH).keyspaceId(2024L),
        key.keyspaceId(new Row(new byte[][] {"2024".getBytes(StandardCharsets.US_ASCII)})));
  }

  @Test
  void floatingPointAndJsonShardingColumnsAreRefusedNamingTableColumnTypeAndWhatToDo() {
    List<String> messages = new ArrayList<>();
    for (String[] t :
        List.of(
            new String[] {"float", "float"},
            new String[] {"double", "double"},
            new String[] {"json", "json"},
            new String[] {"point", "point"},
            new String[] {"inet6", "inet6"})) {
      ColumnDef c = col("k", t[0], t[1], null, 0);
      String m =
          assertThrows(
                  TableRefusedException.class,
                  () -> ShardingKey.of(vschema(VindexType.XXHASH, "k"), table(c)))
              .getMessage();
      assertTrue(
          m.startsWith("table t: column k of type " + t[1] + " cannot be a sharding column: "), m);
      assertTrue(
          m.endsWith(
              "place the table by an integer, string, ENUM, SET, DECIMAL,"
                  + " temporal or binary column"),
          m);
      messages.add(m);
    }
    assertTrue(messages.get(0).contains("floating-point"), messages.get(0));
  }

  @Test
  void anEnumIndexBeyondItsLabelsIsAnError() {
    assertThrows(IllegalArgumentException.class, () -> VindexInput.enumLabel(ENUM, 4));
    assertThrows(
        IllegalArgumentException.class, () -> VindexInput.setLabels(SET, BigInteger.valueOf(8)));
  }

  private static TableSchema table(ColumnDef c) {
    return new TableSchema("ks", "t", List.of(c), List.of(c.name()));
  }

  private static VSchema vschema(VindexType type, String column) {
    return VSchema.parse(
        "{\"sharded\": true, \"vindexes\": {\"v\": {\"type\": \""
            + type.vitessName()
            + "\"}}, \"tables\": {\"t\": {\"column_vindexes\": [{\"column\": \""
            + column
            + "\", \"name\": \"v\"}]}}}");
  }

  /** The keyspace id's hex, or the refusal's class name. */
  private static String map(java.util.function.Supplier<String> ksid) {
    try {
      return ksid.get();
    } catch (RuntimeException e) {
      return e.getClass().getSimpleName();
    }
  }
}
