package io.reshard.switcher;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.reshard.core.placement.ShardingKey;
import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.TableSchema;
import io.reshard.core.schema.TableSchemaReader;
import io.reshard.router.VSchema;
import io.reshard.router.VindexType;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which column types each functional vindex maps, as the placement decides it. */
class VindexFitTest {

  private static ColumnDef column(String name, String dataType, String columnType) {
    boolean text =
        dataType.contains("char")
            || dataType.contains("text")
            || dataType.equals("enum")
            || dataType.equals("set");
    return TableSchemaReader.column(
        name,
        dataType,
        columnType,
        text ? "utf8mb4" : null,
        text ? "utf8mb4_general_ci" : null,
        text ? 20 : 0,
        text ? 80 : 0,
        dataType.equals("decimal") ? 10 : 0,
        dataType.equals("decimal") ? 2 : 0,
        0,
        false,
        false);
  }

  private static TableSchema table(ColumnDef key) {
    return new TableSchema(
        "chat", "t", List.of(column("id", "bigint", "bigint(20)"), key), List.of("id"));
  }

  private static Optional<String> problem(String vindexType, ColumnDef key) {
    TableSchema t = table(key);
    VSchema v =
        VSchema.parse(
            "{\"sharded\": true, \"vindexes\": {\"v\": {\"type\": \""
                + vindexType
                + "\"}}, \"tables\": {\"t\": {\"column_vindexes\": [{\"column\": \""
                + key.name()
                + "\", \"name\": \"v\"}]}}}");
    return VindexFit.problem(t, ShardingKey.of(v, t), "v", VindexType.fromVitessName(vindexType));
  }

  @Test
  void everyFunctionalVindexMapsAnIntegerColumn() {
    for (String type : List.of("hash", "numeric", "xxhash", "binary_md5")) {
      for (ColumnDef c :
          List.of(
              column("k", "bigint", "bigint(20) unsigned"),
              column("k", "int", "int(11)"),
              column("k", "tinyint", "tinyint(4)"))) {
        assertEquals(Optional.empty(), problem(type, c), type + " on " + c.columnType());
      }
    }
  }

  @Test
  void hashOnAVarcharIsRefusedNamingTheTypesThatMapIt() {
    assertEquals(
        Optional.of(
            "table t: its primary vindex v (type hash) cannot map column k of type varchar(20);"
                + " the vindex types that map it: xxhash, binary_md5"),
        problem("hash", column("k", "varchar", "varchar(20)")));
    assertEquals(Optional.empty(), problem("xxhash", column("k", "varchar", "varchar(20)")));
  }

  @Test
  void numericAndHashMapNeitherDecimalsNorDatesNorBytes() {
    for (ColumnDef c :
        List.of(
            column("k", "decimal", "decimal(10,2)"),
            column("k", "datetime", "datetime"),
            column("k", "varbinary", "varbinary(16)"))) {
      assertEquals(true, problem("numeric", c).isPresent(), c.columnType());
      assertEquals(true, problem("hash", c).isPresent(), c.columnType());
      assertEquals(Optional.empty(), problem("binary_md5", c), c.columnType());
    }
  }

  @Test
  void aYearMapsAsAnIntegerAndAnEnumOrSetAsItsLabels() {
    for (String type : List.of("hash", "numeric", "xxhash", "binary_md5")) {
      assertEquals(Optional.empty(), problem(type, column("k", "year", "year(4)")), type);
    }
    for (ColumnDef c :
        List.of(column("k", "enum", "enum('a','b')"), column("k", "set", "set('a','b')"))) {
      assertEquals(Optional.empty(), problem("xxhash", c), c.columnType());
      assertEquals(Optional.empty(), problem("binary_md5", c), c.columnType());
      assertEquals(
          Optional.of(
              "table t: its primary vindex v (type hash) cannot map column k of type "
                  + c.columnType()
                  + "; the vindex types that map it: xxhash, binary_md5"),
          problem("hash", c));
    }
  }
}
