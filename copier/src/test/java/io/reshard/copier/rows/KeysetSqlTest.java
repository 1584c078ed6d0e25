package io.reshard.copier.rows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class KeysetSqlTest {
  static final ColumnDef A =
      new ColumnDef("a", ColumnKind.SIGNED_INTEGER, "bigint(20)", null, null, 0, 19, 0, 0, false);
  static final ColumnDef B =
      new ColumnDef(
          "b",
          ColumnKind.CHARACTER,
          "varchar(20)",
          "utf8mb4",
          "utf8mb4_general_ci",
          20,
          0,
          0,
          0,
          false);
  static final ColumnDef C =
      new ColumnDef("c", ColumnKind.BINARY, "binary(16)", null, null, 16, 0, 0, 0, false);

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
    ColumnDef f = new ColumnDef("f", ColumnKind.FLOATING, "float", null, null, 0, 12, 0, 0, false);
    TableSchema t = new TableSchema("ks", "t", List.of(A, B, f), List.of(A, B), 10);
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
    TableSchema t = new TableSchema("ks", "t", List.of(A, B), List.of(A, B), 10);
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
    ColumnDef bit = new ColumnDef("x", ColumnKind.BIT, "bit(3)", null, null, 0, 0, 0, 0, false);
    assertThrows(IllegalStateException.class, bit::keyParameter);
  }

  @Test
  void decimalAndTemporalKeysAreCastToTheirColumnType() {
    assertEquals(
        "CAST(? AS DECIMAL(12,3))",
        new ColumnDef("d", ColumnKind.DECIMAL, "decimal(12,3)", null, null, 0, 12, 3, 0, false)
            .keyParameter());
    assertEquals(
        "CAST(? AS DATETIME(6))",
        new ColumnDef("t", ColumnKind.TIMESTAMP, "timestamp(6)", null, null, 0, 0, 0, 6, false)
            .keyParameter());
    assertEquals(
        "CAST(? AS TIME(0))",
        new ColumnDef("t", ColumnKind.TIME, "time", null, null, 0, 0, 0, 0, false).keyParameter());
  }
}
