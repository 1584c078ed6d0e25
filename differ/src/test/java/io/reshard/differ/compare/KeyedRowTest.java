package io.reshard.differ.compare;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.copier.rows.ColumnDef;
import io.reshard.copier.rows.ColumnKind;
import io.reshard.copier.rows.Row;
import io.reshard.copier.rows.ShardingKey;
import io.reshard.copier.rows.TableSchema;
import io.reshard.router.VSchema;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeyedRowTest {
  static final ColumnDef ID =
      new ColumnDef("id", ColumnKind.SIGNED_INTEGER, "bigint", null, null, 0, 19, 0, 0, false);
  static final ColumnDef BODY = ChunkMatcherTest.V;
  static final TableSchema T = new TableSchema("ks", "t", List.of(ID, BODY), List.of(ID), 0);

  @Test
  void theRowUnpacksToItsValuesWithNullAndEmptyKeptApart() {
    byte[][] values = {bytes("-42"), null};
    KeyedRow r = KeyedRow.ofKeyColumn(values, 0);
    Row row = r.row();
    assertEquals(2, row.size());
    assertArrayEquals(bytes("-42"), row.value(0));
    assertNull(row.value(1));
    KeyedRow empty = KeyedRow.ofKeyColumn(new byte[][] {bytes("-42"), new byte[0]}, 0);
    assertTrue(r.sameKey(empty));
    assertFalse(r.sameValues(empty), "NULL and '' must differ");
    assertArrayEquals(new byte[0], empty.row().value(1));
  }

  @Test
  void anEqualityKeyInsideTheValuesOrAppendedComparesTheSameBytes() {
    KeyedRow inside = KeyedRow.ofKeyColumn(new byte[][] {bytes("7"), bytes("x")}, 0);
    KeyedRow appended = KeyedRow.of(new byte[][] {bytes("7"), bytes("y")}, bytes("7"));
    assertTrue(inside.sameKey(appended));
    assertEquals(inside.mapKey(), appended.mapKey());
    assertEquals(inside.mapKey().hashCode(), appended.mapKey().hashCode());
    assertFalse(inside.sameValues(appended));
    KeyedRow other = KeyedRow.ofKeyColumn(new byte[][] {bytes("70"), bytes("x")}, 0);
    assertFalse(inside.sameKey(other));
    assertFalse(inside.mapKey().equals(other.mapKey()));
  }

  @Test
  void theKeyspaceIdFromThePackedValueIsTheRowsKeyspaceId() {
    ShardingKey sharding =
        ShardingKey.of(
            VSchema.parse(
                "{\"sharded\": true, \"vindexes\": {\"h\": {\"type\": \"hash\"}}, \"tables\":"
                    + " {\"t\": {\"column_vindexes\": [{\"column\": \"id\", \"name\": \"h\"}]}}}"),
            T);
    for (String id : List.of("1", "-1", "0", "123456789012345678", "9223372036854775807")) {
      byte[][] values = {bytes(id), bytes("body")};
      assertEquals(
          sharding.keyspaceId(new Row(values)),
          KeyedRow.ofKeyColumn(values, 0).keyspaceId(sharding),
          id);
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
