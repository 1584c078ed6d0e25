package io.reshard.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reshard.cluster.Flavor;
import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.TableSchema;
import io.reshard.core.schema.TableSchemaReader;
import io.reshard.testkit.UseFlavor;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link TypeMatrixIT}'s matrix captured from a MySQL 8.0.31 shard (the same columns, edge values
 * and assertions), and MySQL's own forms beside it: JSON, which MySQL keeps as binary JSON in the
 * row image (the record must say the same JSON as MariaDB's record of the same text, in MySQL's
 * text form, the one a JDBC read gives), MySQL 8's default collation {@code utf8mb4_0900_ai_ci}, an
 * invisible column, a functional index (its hidden column is no column of the record) and DEFAULT
 * expressions.
 */
@UseFlavor(Flavor.MYSQL)
class MySqlTypeMatrixIT extends TypeMatrixIT {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** JSON documents as written, one row each of {@code jforms}: MySQL normalises each. */
  private static final List<String> JSON_TEXTS =
      List.of(
          JSON_1,
          "{\"b\": {\"nested\": [true, false, null, {}, []]}, \"a\": \"x\", \"aa\": 1}",
          "[18446744073709551615, -9223372036854775808, 9223372036854775807, 0, -1]",
          "[1e20, 0.1, -2.5e-7, 3.0, 123456789.125]",
          "\"esc \\\" \\\\ / \\n \\t \\u0001 \\u00e9 \uD83D\uDE00\"",
          "{\"\": \"\", \"é\": \"ü\", \"long\": \"" + "x".repeat(300) + "\"}",
          "true",
          "null",
          "[]");

  /**
   * JSON values only SQL makes (MySQL's opaque scalars: datetime, date, time, decimal), ids 100+.
   */
  private static final List<String> JSON_EXPRESSIONS =
      List.of(
          "CAST(CAST('2024-02-29 12:34:56.5' AS DATETIME(6)) AS JSON)",
          "JSON_ARRAY(CAST('2024-02-29' AS DATE), CAST('-12:34:56.25' AS TIME(6)), 1.50)",
          "JSON_OBJECT('d', CAST(-0.000001 AS DECIMAL(10,6)), 'y', CAST(2024 AS JSON))");

  /** MySQL's text form of {@link TypeMatrixIT#JSON_1}: 2.50 a double, one space after each mark. */
  @Override
  String expectedJson1() {
    return "{\"k\": [1, 2.5, \"é\"], \"z\": null}";
  }

  @Override
  void writeFirst(Connection c) throws Exception {
    try (Statement st = c.createStatement()) {
      st.execute("CREATE TABLE jforms (id INT PRIMARY KEY, j JSON) ENGINE=InnoDB");
      st.execute(
          """
          CREATE TABLE forms (
            id INT PRIMARY KEY,
            v VARCHAR(20), c CHAR(3), e ENUM('Ä', 'b'),
            inv INT INVISIBLE DEFAULT 7,
            u BINARY(16) DEFAULT (UUID_TO_BIN(UUID())),
            jd JSON DEFAULT (JSON_OBJECT('at', 1)),
            twice BIGINT DEFAULT (id * 2),
            INDEX lower_v ((LOWER(v)))
          ) ENGINE=InnoDB""");
      st.execute(
          "CREATE TABLE signs (id INT PRIMARY KEY, y YEAR, i INT, u INT UNSIGNED,"
              + " du DECIMAL(5,2) UNSIGNED) ENGINE=InnoDB");
      st.execute("INSERT INTO forms (id, v, c, e) VALUES (1, 'Ärger \uD83D\uDE00', 'é', 'Ä')");
      st.execute("INSERT INTO forms (id, v, inv, twice) VALUES (2, 'A', NULL, NULL)");
      st.execute("INSERT INTO signs VALUES (1, 2024, -1, 4294967295, 1.25)");
      for (int i = 0; i < JSON_EXPRESSIONS.size(); i++) {
        st.execute(
            "INSERT INTO jforms VALUES (" + (100 + i) + ", " + JSON_EXPRESSIONS.get(i) + ")");
      }
    }
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO jforms VALUES (?, ?)")) {
      for (int i = 0; i < JSON_TEXTS.size(); i++) {
        ps.setInt(1, i + 1);
        ps.setString(2, JSON_TEXTS.get(i));
        ps.executeUpdate();
      }
    }
  }

  @Test
  void jsonSaysWhatMariaDbsRecordOfTheSameTextSays() throws Exception {
    Map<Integer, String> server = serverJson();
    assertEquals(JSON_TEXTS.size() + JSON_EXPRESSIONS.size(), server.size());
    for (int id = 1; id <= JSON_TEXTS.size(); id++) {
      String captured = (String) row("jforms", "c", id).after().get("j");
      assertSameJson(server.get(id), captured, "jforms id " + id);
      // MariaDB's record of the same document is the text written
      assertSameJson(JSON_TEXTS.get(id - 1), captured, "jforms id " + id);
    }
    assertSameJson(JSON_1, (String) row("c", 1).after().get("j"), "types.j");
  }

  /** Every JSON value of {@code jforms}, the opaque scalars included, as a JDBC read gives it. */
  @Test
  void jsonIsMySqlsTextForm() throws Exception {
    Map<Integer, String> server = serverJson();
    Map<Integer, Object> captured = new LinkedHashMap<>();
    server.keySet().forEach(id -> captured.put(id, row("jforms", "c", id).after().get("j")));
    assertEquals(server, captured);
    assertEquals("[\"2024-02-29\", \"-12:34:56.250000\", 1.50]", captured.get(101));
  }

  /**
   * MySQL's SIGNEDNESS metadata has a bit for YEAR (an unsigned integer field there), unlike
   * MariaDB's: every numeric column after a YEAR keeps its own sign (capture once took the bit
   * before its own, publishing {@code i = -1} as 4294967295).
   */
  @Test
  void numericColumnsAfterAYearKeepTheirSign() {
    Map<String, Object> a = row("signs", "c", 1).after();
    assertEquals(-1L, a.get("i"));
    assertEquals(4294967295L, a.get("u"));
    assertEquals("1.25", a.get("du"));
    assertTrue(row("signs", "c", 1).schema().column("du").unsigned());
  }

  @Test
  void defaultCollationInvisibleColumnFunctionalIndexAndDefaultExpressions() throws Exception {
    ChangeRecord first = row("forms", "c", 1);
    Map<String, Object> a = first.after();
    assertEquals(List.of("id", "v", "c", "e", "inv", "u", "jd", "twice"), List.copyOf(a.keySet()));
    assertEquals("Ärger \uD83D\uDE00", a.get("v"));
    assertEquals("é", a.get("c"));
    assertEquals("Ä", a.get("e"));
    assertEquals(7L, a.get("inv"), "an invisible column is in the row image");
    assertEquals("{\"at\": 1}", a.get("jd"));
    assertEquals(2L, a.get("twice"));
    assertNull(row("forms", "c", 2).after().get("inv"));
    try (Connection c = cluster.connect(shard);
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT HEX(u), (SELECT COLLATION_NAME FROM information_schema.COLUMNS"
                    + " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'forms'"
                    + " AND COLUMN_NAME = 'v') FROM forms WHERE id = 1")) {
      assertTrue(rs.next());
      assertEquals(rs.getString(1), HexFormat.of().withUpperCase().formatHex((byte[]) a.get("u")));
      assertEquals("utf8mb4_0900_ai_ci", rs.getString(2));
      TableSchema schema = TableSchemaReader.read(c, cluster.database(), "forms").orElseThrow();
      assertEquals(
          first.schema().columns(),
          schema.columns().stream().map(ColumnDef::asBinlogDescribes).toList(),
          "the binlog and information_schema describe the same columns");
    }
  }

  /** {@code jforms} as the server reads it: id to MySQL's text form of {@code j}. */
  private Map<Integer, String> serverJson() throws Exception {
    Map<Integer, String> out = new LinkedHashMap<>();
    try (Connection c = cluster.connect(shard);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT id, j FROM jforms ORDER BY id")) {
      while (rs.next()) {
        out.put(rs.getInt(1), rs.getString(2));
      }
    }
    return out;
  }

  /**
   * The same JSON value: objects by their members, arrays by their elements, numbers by value (an
   * integer by its digits, any other number as the double MySQL stores), the rest exactly.
   */
  private static void assertSameJson(String expected, String actual, String what) {
    Comparator<JsonNode> numbersByValue =
        (x, y) -> {
          if (x.isNumber() && y.isNumber()) {
            return x.isIntegralNumber() && y.isIntegralNumber()
                ? x.bigIntegerValue().compareTo(y.bigIntegerValue())
                : Double.compare(x.doubleValue(), y.doubleValue());
          }
          return x.equals(y) ? 0 : 1;
        };
    assertTrue(tree(expected).equals(numbersByValue, tree(actual)), what + ": " + actual);
  }

  private static JsonNode tree(String json) {
    try {
      return MAPPER.readTree(json);
    } catch (Exception e) {
      throw new AssertionError("not JSON: " + json, e);
    }
  }
}
