package io.reshard.core.placement;

import io.reshard.core.rows.Row;
import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.ColumnKind;
import io.reshard.core.schema.TableRefusedException;
import io.reshard.core.schema.TableSchema;
import io.reshard.core.value.ValueCodec;
import io.reshard.router.ColumnVindex;
import io.reshard.router.KeyspaceId;
import io.reshard.router.UnmappableValueException;
import io.reshard.router.VSchema;
import io.reshard.router.VSchemaTable;
import io.reshard.router.Vindex;
import io.reshard.router.VindexDefinition;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Places a row: the keyspace id of its primary-vindex column, computed by the table's primary
 * vindex in the vschema, exactly as router-lib places the row on writes.
 *
 * <p>The copier and the differ ({@link #keyspaceId(Row)}, from exact bytes) and apply ({@link
 * #keyspaceIdOf}, from a change image) give the vindex the same input for the same stored value,
 * the value an application passes to router-lib: {@link VindexInput} is that one rule (an integer
 * as an integer, text as its UTF-8 bytes, an ENUM or SET as its labels, DECIMAL and temporal values
 * as the server's text, binary values as their bytes). A column type the rule cannot place alike on
 * every path (FLOAT, DOUBLE, ...) is refused by {@link #of}.
 *
 * <p>Immutable and thread-safe.
 */
public final class ShardingKey {
  private final String table;
  private final String column;
  private final int index;
  private final boolean integer;
  private final ColumnDef def;
  private final Vindex vindex;

  private ShardingKey(String table, ColumnDef def, int index, Vindex vindex) {
    this.table = table;
    this.column = def.name();
    this.def = def;
    this.index = index;
    this.integer = def.kind() == ColumnKind.INTEGER;
    this.vindex = vindex;
  }

  /**
   * The sharding key of {@code table}.
   *
   * @throws TableRefusedException if the vschema does not have the table, its primary vindex is a
   *     lookup vindex, the primary-vindex column is not a copied column of the table, or its type
   *     cannot be a sharding column ({@link VindexInput#unsupported})
   */
  public static ShardingKey of(VSchema vschema, TableSchema table) {
    String name = table.table();
    VSchemaTable t =
        vschema
            .table(name)
            .orElseThrow(
                () -> new TableRefusedException("the vschema has no table \"" + name + "\""));
    ColumnVindex cv =
        t.primaryVindex()
            .orElseThrow(
                () ->
                    new TableRefusedException(
                        "table "
                            + name
                            + " has no primary vindex in the vschema: cannot place rows"));
    VindexDefinition def = vschema.primaryVindex(name);
    if (!def.type().isFunctional()) {
      throw new TableRefusedException(
          "table "
              + name
              + " is placed by lookup vindex "
              + def.name()
              + ": the copier places rows by a functional primary vindex only");
    }
    int index = table.copyIndexOf(cv.column());
    if (index < 0) {
      throw new TableRefusedException(
          "table "
              + name
              + " has no (non-generated) column "
              + cv.column()
              + ", its primary vindex column in the vschema");
    }
    ColumnDef column = table.copyColumns().get(index);
    VindexInput.unsupported(column)
        .ifPresent(
            why -> {
              throw new TableRefusedException("table " + name + ": " + why);
            });
    return new ShardingKey(name, column, index, def.functional());
  }

  /**
   * The keyspace id of a row.
   *
   * @throws UnmappableValueException naming the value if the column is NULL or the vindex cannot
   *     map it
   */
  public KeyspaceId keyspaceId(Row row) {
    byte[] v = row.value(index);
    if (v == null) {
      return vindex.keyspaceId(null);
    }
    return vindex.keyspaceId(integer ? integerValue(v) : VindexInput.fromExactBytes(def, v));
  }

  /**
   * The keyspace id of a row image as capture publishes it (apply): {@code image} maps column names
   * to values in {@link ValueCodec}'s representation. Places the row exactly as {@link
   * #keyspaceId(Row)} places the same row read by the copier ({@link VindexInput}).
   *
   * @throws UnmappableValueException naming the value if the column is NULL or the vindex cannot
   *     map it
   */
  public KeyspaceId keyspaceIdOf(Map<String, ?> image) {
    return vindex.keyspaceId(VindexInput.fromValue(def, image.get(column)));
  }

  /** The sharding key's column: the table's primary vindex column. */
  public String column() {
    return column;
  }

  /**
   * An integer column's text as the vindex takes it: a {@code Long} when it has at most 18 digits
   * and is canonical (no sign but {@code -}, no leading zero, not {@code -0}: a vindex reads such a
   * {@code Long} exactly as it reads the text), else the text as a {@code String} (which the vindex
   * checks and ranges). Parsed from the bytes, without a {@code String} in the common case.
   */
  static Object integerValue(byte[] v) {
    int start = v.length > 0 && v[0] == '-' ? 1 : 0;
    int digits = v.length - start;
    if (digits < 1 || digits > 18 || (digits > 1 || start == 1) && v[start] == '0') {
      return new String(v, StandardCharsets.US_ASCII); // long, or not canonical: as text
    }
    long n = 0;
    for (int i = start; i < v.length; i++) {
      int d = v[i] - '0';
      if (d < 0 || d > 9) {
        return new String(v, StandardCharsets.US_ASCII);
      }
      n = n * 10 + d;
    }
    return start == 1 ? -n : n;
  }

  @Override
  public String toString() {
    return table + "." + column + " by " + vindex;
  }
}
