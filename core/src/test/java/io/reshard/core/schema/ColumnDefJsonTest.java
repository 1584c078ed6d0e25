package io.reshard.core.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The change records' {@code reshard.schema} header keeps its shape: what only {@code
 * information_schema} knows of a column (full type text, collation, character count) stays out of
 * it, and a header read back describes the same values.
 */
class ColumnDefJsonTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void theHeaderCarriesNeitherTheFullTypeNorTheCollation() throws Exception {
    ColumnDef name =
        TableSchemaReader.column(
            "name",
            "varchar",
            "varchar(10)",
            "utf8mb4",
            "utf8mb4_general_ci",
            10,
            40,
            0,
            0,
            0,
            true,
            false);
    TableSchema t = new TableSchema("ks", "t", List.of(name), List.of("name"));
    JsonNode header = JSON.readTree(JSON.writeValueAsString(t));
    JsonNode column = header.get("columns").get(0);
    assertEquals("varchar", column.get("type").asText());
    assertEquals(40, column.get("length").asLong());
    assertEquals("utf8mb4", column.get("charset").asText());
    assertFalse(column.has("columnType") || column.has("collation") || column.has("maxChars"));
    assertEquals(List.of("db", "table", "columns", "pk"), fieldNames(header));

    TableSchema back = JSON.readValue(JSON.writeValueAsString(t), TableSchema.class);
    ColumnDef read = back.columns().get(0);
    assertEquals(name.withName("name").kind(), read.kind());
    assertEquals(name.length(), read.length());
    assertEquals(name.charset(), read.charset());
    assertEquals("varchar", read.columnType()); // the base type when only the header describes it
    assertEquals(List.of("name"), back.primaryKey());
    assertEquals(0, back.keyIndex(0));
  }

  @Test
  void theCopyColumnsLeaveGeneratedOnesOut() {
    ColumnDef id =
        TableSchemaReader.column(
            "id", "bigint", "bigint(20)", null, null, 0, 0, 19, 0, 0, false, false);
    ColumnDef g =
        TableSchemaReader.column(
            "g", "bigint", "bigint(20)", null, null, 0, 0, 19, 0, 0, true, true);
    ColumnDef v =
        TableSchemaReader.column("V", "int", "int(11)", null, null, 0, 0, 10, 0, 0, true, false);
    TableSchema t = new TableSchema("ks", "t", List.of(id, g, v), List.of("id"));
    assertEquals(List.of(id, v), t.copyColumns());
    assertEquals(1, t.copyIndexOf("v"));
    assertEquals(2, t.indexOf("V"));
    assertEquals(-1, t.indexOf("v"));
    assertEquals("`ks`.`t`", t.quotedName());
    assertEquals("ks.t", t.qualifiedName());
  }

  private static List<String> fieldNames(JsonNode n) {
    List<String> out = new java.util.ArrayList<>();
    n.fieldNames().forEachRemaining(out::add);
    return out;
  }
}
