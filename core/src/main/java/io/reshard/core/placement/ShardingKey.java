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
 * <p>The column's value is passed to the vindex as a router passes it: an integer column as its
 * decimal text (which {@code hash} and {@code numeric} read as the integer, and {@code xxhash} and
 * {@code binary_md5} hash as Vitess does), any other column as its stored bytes.
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
   *     lookup vindex, or the primary-vindex column is not a copied column of the table
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
    return new ShardingKey(name, table.copyColumns().get(index), index, def.functional());
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
    return vindex.keyspaceId(integer ? integerValue(v) : v);
  }

  /**
   * The keyspace id of a row image as capture publishes it (apply): {@code image} maps column names
   * to values in {@link ValueCodec}'s representation. A character, ENUM, SET or JSON value is
   * placed by its stored bytes, every other value as it is, which places the row exactly as {@link
   * #keyspaceId(Row)} places the same row read by the copier.
   *
   * @throws UnmappableValueException naming the value if the column is NULL or the vindex cannot
   *     map it
   */
  public KeyspaceId keyspaceIdOf(Map<String, ?> image) {
    Object value = image.get(column);
    Object key =
        switch (def.kind()) {
          case TEXT, ENUM, SET, JSON -> value == null ? null : ValueCodec.exactBytes(def, value);
          default -> value;
        };
    return vindex.keyspaceId(key);
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
