package io.reshard.differ.compare;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.reshard.core.placement.SplitFixture;
import io.reshard.core.rows.KeysetSql;
import io.reshard.core.rows.Row;
import io.reshard.core.rows.RowKey;
import io.reshard.core.rows.Sessions;
import io.reshard.core.schema.TableSchema;
import io.reshard.core.schema.TableSchemaReader;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The differ's reads ({@link SideReader}, which selects string columns without a {@code CAST} on a
 * session that sends results unconverted) give, for every column type and edge value, exactly the
 * bytes of the copier's transport ({@code CAST(col AS BINARY)}, {@link KeysetSql#selectList}), in
 * the server's key order; and a character key's rows are paired by collation, compared by bytes.
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SideReaderTypesIT {
  static final String DDL =
      "CREATE TABLE all_types ("
          + " id BIGINT NOT NULL PRIMARY KEY,"
          + " i8 TINYINT, u8 TINYINT UNSIGNED, i64 BIGINT, u64 BIGINT UNSIGNED,"
          + " z INT(6) ZEROFILL,"
          + " dec1 DECIMAL(30,10), dec0 DECIMAL(5,0),"
          + " f FLOAT, f2 FLOAT(7,3), d DOUBLE,"
          + " dt DATETIME(6), dt0 DATETIME, ts TIMESTAMP(6) NULL DEFAULT NULL, dte DATE,"
          + " t TIME(6), y YEAR,"
          + " b BIT(10), b64 BIT(64),"
          + " bin BINARY(8), vbin VARBINARY(20), blb BLOB,"
          + " lat VARCHAR(20) CHARACTER SET latin1,"
          + " utf VARCHAR(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci,"
          + " ch CHAR(5), txt TEXT CHARACTER SET utf8mb4, lbin VARCHAR(10) CHARACTER SET latin1"
          + " COLLATE latin1_bin, u3 VARCHAR(10) CHARACTER SET utf8mb3,"
          + " e ENUM('a','b','c'), s SET('x','y','z'), j JSON,"
          + " gen BIGINT AS (id * 2) VIRTUAL,"
          + " gens VARCHAR(60) AS (CONCAT(utf, '!')) STORED"
          + ") ENGINE=InnoDB";

  static final String COLUMNS =
      "id, i8, u8, i64, u64, z, dec1, dec0, f, f2, d, dt, dt0, ts, dte, t, y, b, b64, bin, vbin,"
          + " blb, lat, utf, ch, txt, lbin, u3, e, s, j";

  static final List<String> ROWS =
      List.of(
          "1, 127, 255, 9223372036854775807, 18446744073709551615, 999999,"
              + " 99999999999999999999.9999999999, 99999, 3.40282e38, 9999.999,"
              + " 1.7976931348623157e308, '9999-12-31 23:59:59.999999', '9999-12-31 23:59:59',"
              + " '2038-01-19 03:14:07.999999', '9999-12-31', '838:59:59.000000', 2155,"
              + " b'1111111111', b'1111111111111111111111111111111111111111111111111111111111111111',"
              + " X'6162', X'61000000', X'00FF00', X'63616680', 'café 😀', 'ab',"
              + " REPEAT('x', 1000), X'E9FF', 'café', 'c', 'x,z', '{\"a\": 1,  \"b\":[1, 2.50]}'",
          "2, -128, 0, -9223372036854775808, 0, 0, -99999999999999999999.9999999999, -99999,"
              + " -1.17549435e-38, -9999.999, -2.2250738585072014e-308,"
              + " '0000-00-00 00:00:00.000000', '0000-00-00 00:00:00', '0000-00-00 00:00:00',"
              + " '0000-00-00', '-838:59:59.000000', 0000, b'0', b'0', X'', X'', X'', X'', '', '',"
              + " '', '', '', '', '', '\"\"'",
          "3, 0, 1, 0, 9223372036854775808, 42, 0.0000000001, 0, 16777217, 0.001,"
              + " 0.30000000000000004, '2020-00-15 12:00:00.5', '1000-01-01 00:00:00',"
              + " '1970-01-01 00:00:01', '2020-02-00', '-00:00:00.000001', 1901, b'0000000001',"
              + " b'1000000000000000000000000000000000000000000000000000000000000000',"
              + " X'0000000000000000', X'610000', X'00010203FEFF', X'E9', 'cafe\u0301', 'a  ',"
              + " 'line1\\nline2\\ttab\\\\ back''quote', 'a ', 'zoë', 'a', 'x,y,z',"
              + " '{\"é\": \"\\\\u00e9\", \"n\": null}'",
          "4, -1, 128, -1, 1, 7, -0.0000000001, -1, -0e0, -0.001, -0e0,"
              + " '1000-01-01 00:00:00.000001', '2000-02-29 00:00:00', '1999-12-31 23:59:59.999999',"
              + " '2000-02-29', '00:00:00', 1970, b'1', b'1', X'00', X'00', X'00', X'20', ' leading',"
              + " ' ', ' x ', X'00', ' ', 'b', 'y', '[]'",
          "5, " + String.join(", ", Collections.nCopies(30, "NULL")));

  private final SplitFixture fx;

  SideReaderTypesIT(TestCluster cluster) {
    fx = new SplitFixture(cluster);
  }

  @BeforeAll
  void load() throws Exception {
    fx.loose(
        fx.source,
        DDL,
        "INSERT INTO all_types (" + COLUMNS + ") VALUES (" + String.join("), (", ROWS) + ")",
        "CREATE TABLE names (name VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci"
            + " NOT NULL PRIMARY KEY, v INT) ENGINE=InnoDB",
        "INSERT INTO names VALUES ('Café', 1), ('zoë', 2), ('a', 3), ('B', 4), ('c ', 5), ('Zz', 6)");
  }

  private Connection open() throws Exception {
    return Sessions.open(SplitFixture.endpoint(fx.source), fx.cluster.database(), "");
  }

  /** The copier's transport of every row: {@code CAST(col AS BINARY)}, in key order. */
  private List<byte[][]> copierRows(TableSchema t) throws Exception {
    List<byte[][]> out = new ArrayList<>();
    try (Connection c = open();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT "
                    + KeysetSql.selectList(t.copyColumns())
                    + " FROM "
                    + t.quotedName()
                    + KeysetSql.orderBy(t.keyColumns()))) {
      while (rs.next()) {
        Row r = Row.read(rs, t.copyColumns().size());
        byte[][] v = new byte[r.size()][];
        for (int i = 0; i < v.length; i++) {
          v[i] = r.value(i);
        }
        out.add(v);
      }
    }
    return out;
  }

  private void assertSameAsCopier(String table, int limit) throws Exception {
    try (Connection c = open()) {
      TableSchema t = TableSchemaReader.readMoved(c, fx.cluster.database(), table);
      List<byte[][]> expected = copierRows(t);
      SideReader.prepare(c);
      SideReader reader = new SideReader(t, limit);
      List<KeyedRow> got = new ArrayList<>();
      RowKey after = null;
      while (true) {
        List<KeyedRow> chunk = reader.read(c, after, null);
        got.addAll(chunk);
        if (chunk.size() < limit) {
          break;
        }
        after = t.keyOf(chunk.get(chunk.size() - 1).row());
      }
      assertEquals(expected.size(), got.size(), table + ": rows");
      HexFormat hex = HexFormat.of();
      for (int r = 0; r < expected.size(); r++) {
        for (int i = 0; i < expected.get(r).length; i++) {
          byte[] want = expected.get(r)[i];
          byte[] have = got.get(r).row().value(i);
          String where = table + " row " + r + " column " + t.copyColumns().get(i).name();
          assertArrayEquals(
              want,
              have,
              () ->
                  where
                      + ": copier "
                      + (want == null ? "NULL" : hex.formatHex(want))
                      + ", differ "
                      + (have == null ? "NULL" : hex.formatHex(have)));
        }
      }
    }
  }

  @Test
  void everyTypesValuesAreTheCopiersBytes() throws Exception {
    assertSameAsCopier("all_types", 2);
  }

  @Test
  void characterKeysComeInCollationOrderWithTheirStoredBytes() throws Exception {
    assertSameAsCopier("names", 2);
  }
}
