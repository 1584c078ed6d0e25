package io.reshard.switcher;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reshard.core.placement.ShardingKey;
import io.reshard.core.rows.Row;
import io.reshard.core.schema.TableSchema;
import io.reshard.router.UnmappableValueException;
import io.reshard.router.VSchema;
import io.reshard.router.VindexType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Whether a table's primary vindex can map its column's type, decided by the code that places the
 * rows rather than by a list of its own: the one placement rule ({@link ShardingKey}, which copy,
 * diff and apply share and which gives the vindex what an application gives router-lib) is asked to
 * place a probe row, and the router-lib vindex it calls accepts or refuses the value in the form
 * the rule passes it. The rule passes an integer or YEAR column's value as an integer and every
 * other column's as bytes (text as UTF-8, an ENUM or SET as its labels); the router-lib vindexes
 * take integers ({@code hash}, {@code numeric}) or bytes and integers ({@code xxhash}, {@code
 * binary_md5}). A column type the rule cannot place alike on every path (FLOAT, DOUBLE, ...) is
 * refused before this check, by {@link ShardingKey#of}. So whether a type fits depends on the
 * column's kind, never on the value, and one probe value answers it for every row: the text {@code
 * 0}, which is a valid integer, ENUM index and SET mask and is as good as any other bytes.
 *
 * <p>The same probe over every functional {@link VindexType} names the types that would map the
 * column, for the refusal's advice. Stateless and thread-safe.
 */
final class VindexFit {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The probe value's text; see the class description. */
  private static final byte[] PROBE = "0".getBytes(StandardCharsets.US_ASCII);

  private VindexFit() {}

  /**
   * Why {@code key} cannot place rows of {@code table}, if it cannot.
   *
   * @param key the table's placement, from {@link ShardingKey#of}
   * @return the reason, naming the table, its vindex, the column and its type, and the vindex types
   *     that would map it; empty if it fits
   */
  static Optional<String> problem(
      TableSchema table, ShardingKey key, String vindexName, VindexType type) {
    if (maps(table, key)) {
      return Optional.empty();
    }
    String column = key.column();
    List<String> fitting = typesThatMap(table, column);
    return Optional.of(
        "table "
            + table.table()
            + ": its primary vindex "
            + vindexName
            + " (type "
            + type
            + ") cannot map column "
            + column
            + " of type "
            + table.column(column).columnType()
            + (fitting.isEmpty()
                ? "; no vindex type reshard supports maps it: place the table by another column"
                : "; the vindex types that map it: " + String.join(", ", fitting)));
  }

  /** The functional vindex types that would place rows of {@code table} by {@code column}. */
  static List<String> typesThatMap(TableSchema table, String column) {
    List<String> fitting = new ArrayList<>();
    for (VindexType t : VindexType.values()) {
      if (t.isFunctional()
          && maps(table, ShardingKey.of(oneTableVSchema(t, table, column), table))) {
        fitting.add(t.vitessName());
      }
    }
    return fitting;
  }

  /** True if {@code key} places the probe row. */
  private static boolean maps(TableSchema table, ShardingKey key) {
    byte[][] values = new byte[table.copyColumns().size()][];
    values[table.copyIndexOf(key.column())] = PROBE;
    try {
      key.keyspaceId(new Row(values));
      return true;
    } catch (UnmappableValueException e) {
      return false;
    }
  }

  /** A sharded vschema of one table, placed by a vindex of {@code type} on {@code column}. */
  private static VSchema oneTableVSchema(VindexType type, TableSchema table, String column) {
    ObjectNode root = JSON.createObjectNode().put("sharded", true);
    root.putObject("vindexes").putObject("v").put("type", type.vitessName());
    root.putObject("tables")
        .putObject(table.table())
        .putArray("column_vindexes")
        .addObject()
        .put("column", column)
        .put("name", "v");
    return VSchema.fromJson(root);
  }
}
