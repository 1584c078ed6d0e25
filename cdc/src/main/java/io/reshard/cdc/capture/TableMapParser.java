package io.reshard.cdc.capture;

import static io.reshard.cdc.capture.BinlogTypes.*;

import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.TableSchema;
import io.reshard.core.value.MariaDbCharsets;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Parses a TABLE_MAP event body into a {@link BinlogTable}, reading the optional metadata that
 * {@code binlog_row_metadata = FULL} adds (signedness, charsets, column names, ENUM/SET labels,
 * primary key). Labels are decoded in their column's charset; names as UTF-8. The binlog library's
 * own parser decodes them with the JVM default charset, which is why capture parses this itself.
 *
 * <p>Layout: table id (6), flags (2), schema (len, bytes, 0), table (len, bytes, 0), column count
 * (packed), types (1 per column), metadata (packed length, then per type 0-2 bytes), null bitmap,
 * then optional fields of (type byte, packed length, value).
 *
 * <p>Stateless and thread-safe.
 */
final class TableMapParser {

  private static final int SIGNEDNESS = 1;
  private static final int DEFAULT_CHARSET = 2;
  private static final int COLUMN_CHARSET = 3;
  private static final int COLUMN_NAME = 4;
  private static final int SET_STR_VALUE = 5;
  private static final int ENUM_STR_VALUE = 6;
  private static final int GEOMETRY_TYPE = 7;
  private static final int SIMPLE_PRIMARY_KEY = 8;
  private static final int PRIMARY_KEY_WITH_PREFIX = 9;
  private static final int ENUM_AND_SET_DEFAULT_CHARSET = 10;
  private static final int ENUM_AND_SET_COLUMN_CHARSET = 11;

  private final MariaDbCharsets charsets;
  private final boolean mariaDb;
  private final Set<String> capturedDatabases;

  /**
   * @param capturedDatabases tables of other databases are mapped by name only (no columns), so a
   *     column type cdc cannot read elsewhere never stops capture
   */
  TableMapParser(MariaDbCharsets charsets, boolean mariaDb, Set<String> capturedDatabases) {
    this.charsets = charsets;
    this.mariaDb = mariaDb;
    this.capturedDatabases = capturedDatabases;
  }

  /** The optional metadata fields, as read. */
  private static final class OptionalFields {
    BitSet unsigned = new BitSet();
    List<Integer> charsets = new ArrayList<>();
    List<Integer> enumSetCharsets = new ArrayList<>();
    List<String> names = new ArrayList<>();
    List<List<byte[]>> setLabels = new ArrayList<>();
    List<List<byte[]>> enumLabels = new ArrayList<>();
    List<Integer> primaryKey = new ArrayList<>();
    List<Integer> geometryTypes = new ArrayList<>();
  }

  /** Field::geometry_type, the GEOMETRY_TYPE field's values, as information_schema names them. */
  private static final List<String> GEOMETRY_TYPES =
      List.of(
          "geometry",
          "point",
          "linestring",
          "polygon",
          "multipoint",
          "multilinestring",
          "multipolygon",
          "geometrycollection");

  /**
   * Parses one TABLE_MAP body.
   *
   * @throws IllegalStateException if the body is malformed, or lacks column names (the server's
   *     {@code binlog_row_metadata} is not FULL)
   */
  BinlogTable parse(byte[] body) {
    ByteCursor c = new ByteCursor(body);
    long tableId = c.le(6);
    c.skip(2);
    String db = new String(c.bytes(c.u8()), StandardCharsets.UTF_8);
    c.skip(1);
    String table = new String(c.bytes(c.u8()), StandardCharsets.UTF_8);
    c.skip(1);
    if (!capturedDatabases.contains(db)) {
      return new BinlogTable(
          tableId, new TableSchema(db, table, List.of(), List.of()), new int[0], new int[0], body);
    }
    int n = c.packedInt();
    int[] types = new int[n];
    for (int i = 0; i < n; i++) {
      types[i] = c.u8();
    }
    int metaLength = c.packedInt();
    int metaEnd = c.position() + metaLength;
    int[] metas = new int[n];
    int unknown = -1; // a type code whose metadata cdc cannot read: no later column's either
    for (int i = 0; i < n && unknown < 0; i++) {
      if (metadataLength(types[i]) < 0) {
        unknown = i;
        c.skip(metaEnd - c.position());
        break;
      }
      metas[i] = readMeta(c, types, i);
      if (mariaDb && isOldTemporal(types[i])) {
        metas[i] = FSP_FROM_SCHEMA; // 0 (pre-5.6 layout) or 1-6 (5.3 hires): from the schema
      }
    }
    if (c.position() != metaEnd) {
      throw new IllegalStateException(db + "." + table + ": TABLE_MAP metadata length mismatch");
    }
    BitSet nullable = BitSet.valueOf(c.bytes((n + 7) / 8));
    OptionalFields opt = readOptional(c, types);
    if (unknown >= 0) {
      throw new IllegalStateException(
          db
              + "."
              + table
              + ": column "
              + (opt.names.size() == n ? opt.names.get(unknown) : "#" + (unknown + 1))
              + " has binlog type code "
              + types[unknown]
              + ", a column format of an old server that cdc cannot decode; rewrite the table"
              + " in today's formats first (ALTER TABLE ... FORCE)");
    }
    if (opt.names.size() != n) {
      throw new IllegalStateException(
          db + "." + table + ": TABLE_MAP has no column names; set binlog_row_metadata = FULL");
    }
    List<ColumnDef> columns = columns(types, metas, nullable, opt);
    List<String> pk = new ArrayList<>();
    opt.primaryKey.forEach(i -> pk.add(opt.names.get(i)));
    return new BinlogTable(tableId, new TableSchema(db, table, columns, pk), types, metas, body);
  }

  /** Reads one column's metadata; resolves STRING's real type into {@code types[i]}. */
  private static int readMeta(ByteCursor c, int[] types, int i) {
    int type = types[i];
    return switch (type) {
      case NEWDECIMAL -> {
        int precision = c.u8();
        yield (precision << 8) | c.u8();
      }
      case BIT -> {
        int bits = c.u8();
        yield c.u8() * 8 + bits;
      }
      case VARCHAR, VAR_STRING -> (int) c.le(2);
      case STRING, ENUM, SET -> {
        int real = c.u8();
        int length = c.u8();
        if ((real & 0x30) != 0x30) {
          length |= ((real & 0x30) ^ 0x30) << 4;
          real |= 0x30;
        }
        types[i] = real == ENUM || real == SET ? real : STRING;
        yield length;
      }
      default -> (int) c.le(metadataLength(type)); // known: parse checks it first
    };
  }

  private OptionalFields readOptional(ByteCursor c, int[] types) {
    OptionalFields o = new OptionalFields();
    int numeric = 0;
    for (int t : types) {
      numeric += isNumeric(t) ? 1 : 0;
    }
    while (c.hasRemaining()) {
      int field = c.u8();
      int length = c.packedInt();
      ByteCursor f = new ByteCursor(c.bytes(length));
      switch (field) {
        case SIGNEDNESS -> o.unsigned = msbBits(f, numeric);
        case DEFAULT_CHARSET -> o.charsets = defaultCharset(f, count(types, true));
        case COLUMN_CHARSET -> o.charsets = packedList(f);
        case COLUMN_NAME -> {
          while (f.hasRemaining()) {
            o.names.add(f.packedUtf8());
          }
        }
        case SET_STR_VALUE -> o.setLabels = labels(f);
        case ENUM_STR_VALUE -> o.enumLabels = labels(f);
        case GEOMETRY_TYPE -> o.geometryTypes = packedList(f);
        case SIMPLE_PRIMARY_KEY -> o.primaryKey = packedList(f);
        case PRIMARY_KEY_WITH_PREFIX -> {
          while (f.hasRemaining()) {
            o.primaryKey.add(f.packedInt());
            f.packed();
          }
        }
        case ENUM_AND_SET_DEFAULT_CHARSET ->
            o.enumSetCharsets = defaultCharset(f, count(types, false));
        case ENUM_AND_SET_COLUMN_CHARSET -> o.enumSetCharsets = packedList(f);
        default -> {
          // visibility and later additions are not needed
        }
      }
    }
    return o;
  }

  private List<ColumnDef> columns(int[] types, int[] metas, BitSet nullable, OptionalFields o) {
    List<ColumnDef> out = new ArrayList<>();
    int numeric = 0;
    int character = 0;
    int enums = 0;
    int sets = 0;
    int enumOrSet = 0;
    int geometries = 0;
    for (int i = 0; i < types.length; i++) {
      int t = types[i];
      boolean unsigned = isNumeric(t) && o.unsigned.get(numeric++);
      String charset = null;
      List<String> labels = List.of();
      if (isCharacter(t, mariaDb)) {
        charset = charsetAt(o.charsets, character++);
      } else if (t == ENUM || t == SET) {
        charset = charsetAt(o.enumSetCharsets, enumOrSet++);
        List<byte[]> raw = t == ENUM ? at(o.enumLabels, enums++) : at(o.setLabels, sets++);
        labels = decodeLabels(raw, charset);
      }
      ColumnDef def =
          ColumnDefs.fromBinlog(
              o.names.get(i), t, metas[i], unsigned, charset, labels, nullable.get(i));
      if (t == GEOMETRY) {
        int g = geometries < o.geometryTypes.size() ? o.geometryTypes.get(geometries) : 0;
        geometries++;
        def =
            ColumnDefs.spatial(def, g < GEOMETRY_TYPES.size() ? GEOMETRY_TYPES.get(g) : "geometry");
      }
      out.add(def);
    }
    return out;
  }

  private String charsetAt(List<Integer> collations, int index) {
    if (index >= collations.size()) {
      return null; // no charset metadata: ColumnDefs treats the column as binary-unknown
    }
    return charsets.charsetOf(collations.get(index));
  }

  private static List<byte[]> at(List<List<byte[]>> lists, int index) {
    return index < lists.size() ? lists.get(index) : List.of();
  }

  private static List<String> decodeLabels(List<byte[]> raw, String charset) {
    List<String> labels = new ArrayList<>();
    for (byte[] b : raw) {
      labels.add(
          charset == null
              ? new String(b, StandardCharsets.UTF_8)
              : MariaDbCharsets.decode(charset, b).text());
    }
    return labels;
  }

  /** Columns counted by a charset field: character columns, or ENUM and SET columns. */
  private int count(int[] types, boolean character) {
    int n = 0;
    for (int t : types) {
      boolean counted = character ? isCharacter(t, mariaDb) : (t == ENUM || t == SET);
      n += counted ? 1 : 0;
    }
    return n;
  }

  /** A DEFAULT_CHARSET field: a default collation, then (index, collation) exceptions. */
  private static List<Integer> defaultCharset(ByteCursor f, int columns) {
    int dflt = f.packedInt();
    Map<Integer, Integer> exceptions = new HashMap<>();
    while (f.hasRemaining()) {
      exceptions.put(f.packedInt(), f.packedInt());
    }
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < columns; i++) {
      out.add(exceptions.getOrDefault(i, dflt));
    }
    return out;
  }

  private static List<Integer> packedList(ByteCursor f) {
    List<Integer> out = new ArrayList<>();
    while (f.hasRemaining()) {
      out.add(f.packedInt());
    }
    return out;
  }

  private static List<List<byte[]>> labels(ByteCursor f) {
    List<List<byte[]>> out = new ArrayList<>();
    while (f.hasRemaining()) {
      int count = f.packedInt();
      List<byte[]> labels = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        labels.add(f.packedBytes());
      }
      out.add(labels);
    }
    return out;
  }

  /** A bitmap written most significant bit first: bit k of the result is the k-th flag. */
  static BitSet msbBits(ByteCursor f, int count) {
    BitSet bits = new BitSet();
    for (int k = 0; k < count && f.hasRemaining(); k += 8) {
      int b = f.u8();
      for (int j = 0; j < 8 && k + j < count; j++) {
        if ((b & (0x80 >> j)) != 0) {
          bits.set(k + j);
        }
      }
    }
    return bits;
  }
}
