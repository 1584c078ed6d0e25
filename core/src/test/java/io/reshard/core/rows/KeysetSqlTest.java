package io.reshard.core.rows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.TableSchema;
import io.reshard.core.schema.TableSchemaReader;
import io.reshard.core.value.ValueCodec;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeysetSqlTest {
  static final ColumnDef A = col("a", "bigint", "bigint(20)", null, null, 0, 19, 0, 0);
  static final ColumnDef B =
      col("b", "varchar", "varchar(20)", "utf8mb4", "utf8mb4_general_ci", 20, 0, 0, 0);
  static final ColumnDef C = col("c", "binary", "binary(16)", null, null, 16, 0, 0, 0);

  /** A column as one row of information_schema.COLUMNS describes it. */
  static ColumnDef col(
      String name,
      String dataType,
      String columnType,
      String charset,
      String collation,
      long maxChars,
      int precision,
      int scale,
      int fraction) {
    return TableSchemaReader.column(
        name,
        dataType,
        columnType,
        charset,
        collation,
        maxChars,
        maxChars * 4,
        precision,
        scale,
        fraction,
        true,
        false);
  }

  @Test
  void aSingleColumnKeyIsOneComparison() {
    KeysetSql.Predicate p = KeysetSql.after(List.of(A));
    assertEquals("((`a` > CAST(? AS SIGNED)))", p.sql());
    assertEquals(List.of(new KeysetSql.Bind(0, 0)), p.binds());
  }

  @Test
  void aCompositeKeyIsExpandedNotATupleComparison() {
    KeysetSql.Predicate p = KeysetSql.after(List.of(A, B));
    assertEquals(
        "((`a` > CAST(? AS SIGNED))"
            + " OR (`a` = CAST(? AS SIGNED) AND `b` > CONVERT(? USING utf8mb4) COLLATE"
            + " utf8mb4_general_ci))",
        p.sql());
    assertEquals(
        List.of(new KeysetSql.Bind(0, 0), new KeysetSql.Bind(0, 0), new KeysetSql.Bind(0, 1)),
        p.binds());
  }

  @Test
  void equalityIsEveryColumnEqualInItsCollation() {
    KeysetSql.Predicate p = KeysetSql.equalTo(List.of(A, B));
    assertEquals(
        "(`a` = CAST(? AS SIGNED) AND `b` = CONVERT(? USING utf8mb4) COLLATE utf8mb4_general_ci)",
        p.sql());
    assertEquals(List.of(new KeysetSql.Bind(0, 0), new KeysetSql.Bind(0, 1)), p.binds());
  }

  @Test
  void threeColumnsBindEachPrefixInOrder() {
    KeysetSql.Predicate p = KeysetSql.after(List.of(A, B, C));
    assertEquals(
        "((`a` > CAST(? AS SIGNED))"
            + " OR (`a` = CAST(? AS SIGNED) AND `b` > CONVERT(? USING utf8mb4) COLLATE"
            + " utf8mb4_general_ci)"
            + " OR (`a` = CAST(? AS SIGNED) AND `b` = CONVERT(? USING utf8mb4) COLLATE"
            + " utf8mb4_general_ci AND `c` > ?))",
        p.sql());
    assertEquals(
        List.of(0, 0, 1, 0, 1, 2), p.binds().stream().map(KeysetSql.Bind::column).toList());
  }

  @Test
  void atMostIsStrictExceptOnTheLastColumn() {
    assertEquals(
        "((`a` < CAST(? AS SIGNED)) OR (`a` = CAST(? AS SIGNED) AND `c` <= ?))",
        KeysetSql.atMost(List.of(A, C)).sql());
  }

  @Test
  void comparingTwoBoundKeysBindsBothOperandsInOrder() {
    KeysetSql.Predicate p = KeysetSql.firstBeforeSecond(List.of(A, C));
    assertEquals(
        "((CAST(? AS SIGNED) < CAST(? AS SIGNED))"
            + " OR (CAST(? AS SIGNED) = CAST(? AS SIGNED) AND ? < ?))",
        p.sql());
    assertEquals(
        List.of(
            new KeysetSql.Bind(0, 0),
            new KeysetSql.Bind(1, 0),
            new KeysetSql.Bind(0, 0),
            new KeysetSql.Bind(1, 0),
            new KeysetSql.Bind(0, 1),
            new KeysetSql.Bind(1, 1)),
        p.binds());
  }

  @Test
  void theChunkReadLocksInKeyOrderAndSelectsExactValues() {
    ColumnDef f = col("f", "float", "float", null, null, 0, 12, 0, 0);
    TableSchema t = new TableSchema("ks", "t", List.of(A, B, f), List.of("a", "b"));
    assertEquals(
        "SELECT CAST(`a` AS BINARY), CAST(`b` AS BINARY), CAST(CAST(`f` AS DOUBLE) AS BINARY)"
            + " FROM `ks`.`t` ORDER BY `a`, `b` LIMIT 500 LOCK IN SHARE MODE",
        KeysetSql.lockingChunk(t, false, 500));
    String next = KeysetSql.lockingChunk(t, true, 500);
    assertEquals(
        "SELECT CAST(`a` AS BINARY), CAST(`b` AS BINARY), CAST(CAST(`f` AS DOUBLE) AS BINARY)"
            + " FROM `ks`.`t` WHERE "
            + KeysetSql.after(List.of(A, B)).sql()
            + " ORDER BY `a`, `b` LIMIT 500 LOCK IN SHARE MODE",
        next);
  }

  @Test
  void theDiffReadAddsCollationEqualityKeys() {
    TableSchema t = new TableSchema("ks", "t", List.of(A, B), List.of("a", "b"));
    assertEquals(
        "SELECT CAST(`a` AS BINARY), CAST(`b` AS BINARY), CAST(`a` AS BINARY),"
            + " WEIGHT_STRING(`b` AS CHAR(20)) FROM `ks`.`t` WHERE "
            + KeysetSql.after(List.of(A, B)).sql()
            + " AND "
            + KeysetSql.atMost(List.of(A, B)).sql()
            + " ORDER BY `a`, `b` LIMIT 7",
        KeysetSql.snapshotChunk(t, true, true, 7));
  }

  @Test
  void namesWithBackticksAreQuoted() {
    assertEquals("`we``ird`", ColumnDef.quote("we`ird"));
  }

  @Test
  void kindsWithoutAnSqlOrderCannotBeKeys() {
    ColumnDef bit = col("x", "bit", "bit(3)", null, null, 0, 3, 0, 0);
    assertThrows(IllegalStateException.class, () -> ValueCodec.keyParameter(bit));
  }

  @Test
  void decimalAndTemporalKeysAreCastToTheirColumnType() {
    assertEquals(
        "CAST(? AS DECIMAL(12,3))",
        ValueCodec.keyParameter(col("d", "decimal", "decimal(12,3)", null, null, 0, 12, 3, 0)));
    assertEquals(
        "CAST(? AS DATETIME(6))",
        ValueCodec.keyParameter(col("t", "timestamp", "timestamp(6)", null, null, 0, 0, 0, 6)));
    assertEquals(
        "CAST(? AS TIME(0))",
        ValueCodec.keyParameter(col("t", "time", "time", null, null, 0, 0, 0, 0)));
  }

  @Test
  void anEnumKeyIsComparedByIndexAsEqualitiesTheRangeOptimizerUses() {
    ColumnDef e =
        col("e", "enum", "enum('zeta','alpha')", "utf8mb4", "utf8mb4_general_ci", 5, 0, 0, 0);
    assertEquals("CAST(? AS UNSIGNED)", ValueCodec.keyParameter(e));
    KeysetSql.Predicate after = KeysetSql.after(List.of(e, A));
    assertEquals(
        "((((`e` = 0 AND 0 > CAST(? AS UNSIGNED)) OR (`e` = 1 AND 1 > CAST(? AS UNSIGNED))"
            + " OR (`e` = 2 AND 2 > CAST(? AS UNSIGNED)))) OR (`e` = CAST(? AS UNSIGNED)"
            + " AND `a` > CAST(? AS SIGNED)))",
        after.sql());
    assertEquals(5, after.binds().size());
    assertEquals(new KeysetSql.Bind(0, 1), after.binds().get(4));
    assertEquals(
        "((((`e` = 0 AND 0 <= CAST(? AS UNSIGNED)) OR (`e` = 1 AND 1 <= CAST(? AS UNSIGNED))"
            + " OR (`e` = 2 AND 2 <= CAST(? AS UNSIGNED)))))",
        KeysetSql.atMost(List.of(e)).sql());
  }

  @Test
  void anEnumWithTooManyLabelsOrASetCannotBeAKey() {
    StringBuilder type = new StringBuilder("enum(");
    for (int i = 0; i <= ColumnDef.MAX_ENUM_KEY_LABELS; i++) {
      type.append(i == 0 ? "" : ",").append("'l").append(i).append("'");
    }
    ColumnDef big = col("e", "enum", type.append(")").toString(), "utf8mb4", null, 5, 0, 0, 0);
    assertEquals(false, big.canBeKey());
    ColumnDef set = col("s", "set", "set('a','b')", "utf8mb4", null, 3, 0, 0, 0);
    assertEquals(false, set.canBeKey());
  }
}
