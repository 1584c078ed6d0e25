package io.reshard.core.rows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A primary-key value: per key column the exact bytes of its text form, as a {@link Row} carries
 * them. Key columns are never NULL.
 *
 * <p>{@link #equals} compares bytes, not collation: it is for exact round trips ({@link #toJson} /
 * {@link #fromJson}), never for ordering. The order of keys is always decided by the server (see
 * {@link KeysetSql}).
 *
 * <p>Immutable and thread-safe.
 */
public final class RowKey {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HexFormat HEX = HexFormat.of();

  private final byte[][] values;

  /**
   * @param values one entry per key column, in key order; not copied
   */
  public RowKey(byte[][] values) {
    this.values = values;
  }

  /** The bytes of key column {@code i}. Not copied. */
  public byte[] value(int i) {
    return values[i];
  }

  /** The number of key columns. */
  public int size() {
    return values.length;
  }

  /**
   * The stored form of a key, exact whatever the bytes: {@code {"columns":["a","b"],
   * "hex":["2d35","636166c3a9"]}} (the key columns' names and their values' bytes in hex).
   */
  public String toJson(List<String> columns) {
    ObjectNode root = JSON.createObjectNode();
    ArrayNode names = root.putArray("columns");
    columns.forEach(names::add);
    ArrayNode hex = root.putArray("hex");
    for (byte[] v : values) {
      hex.add(HEX.formatHex(v));
    }
    return root.toString();
  }

  /**
   * Reads a key stored by {@link #toJson}.
   *
   * @param expectedColumns the table's key columns now
   * @throws IllegalArgumentException if the text is not such a document, or names other columns
   */
  public static RowKey fromJson(String json, List<String> expectedColumns) {
    try {
      JsonNode root = JSON.readTree(json);
      List<String> names = new ArrayList<>();
      root.path("columns").forEach(n -> names.add(n.asText()));
      if (!names.equals(expectedColumns)) {
        throw new IllegalArgumentException(
            "stored key names columns " + names + " but the key is now " + expectedColumns);
      }
      JsonNode hex = root.path("hex");
      byte[][] v = new byte[hex.size()][];
      for (int i = 0; i < v.length; i++) {
        v[i] = HEX.parseHex(hex.get(i).asText());
      }
      if (v.length != names.size()) {
        throw new IllegalArgumentException("stored key has " + v.length + " values: " + json);
      }
      return new RowKey(v);
    } catch (IOException e) {
      throw new IllegalArgumentException("not a stored key: " + json, e);
    }
  }

  /**
   * A readable form for reports and logs: {@code column -> value}, each value as its text when it
   * is valid UTF-8 without control characters, else as {@code 0x} and hex.
   */
  public Map<String, String> describe(List<String> columns) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < values.length; i++) {
      out.put(columns.get(i), printable(values[i]));
    }
    return out;
  }

  /**
   * A value's bytes as readable text if they are clean UTF-8, else {@code 0x} + hex; null stays
   * null.
   */
  public static String printable(byte[] v) {
    if (v == null) {
      return null;
    }
    try {
      String s =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(v))
              .toString();
      if (s.chars().noneMatch(ch -> ch < 0x20 || ch == 0x7f)) {
        return s;
      }
    } catch (CharacterCodingException e) {
      // not text: hex below
    }
    return "0x" + HEX.formatHex(v);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RowKey k && Arrays.deepEquals(values, k.values);
  }

  @Override
  public int hashCode() {
    return Arrays.deepHashCode(values);
  }

  @Override
  public String toString() {
    List<String> parts = new ArrayList<>();
    for (byte[] v : values) {
      parts.add(printable(v));
    }
    return parts.toString();
  }
}
