package io.reshard.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class VSchemaTest {

  static String customerVSchemaJson() {
    try (InputStream in = VSchemaTest.class.getResourceAsStream("customer-vschema.json")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static VSchemaException refused(String json) {
    return assertThrows(VSchemaException.class, () -> VSchema.parse(json));
  }

  @Test
  void loadsARealisticVitessFileUnchanged() {
    VSchema v = VSchema.parse(customerVSchemaJson());
    assertTrue(v.sharded());
    assertEquals(
        List.of("hash", "xxhash", "binary_md5", "customer_email_lookup", "corder_sku_lookup"),
        List.copyOf(v.vindexes().keySet()));
    assertEquals(
        List.of("customer", "corder", "customer_email_lookup", "corder_sku_lookup", "country"),
        List.copyOf(v.tables().keySet()));
    assertEquals(VindexType.HASH, v.primaryVindex("customer").type());
    assertEquals(VindexType.XXHASH, v.primaryVindex("customer_email_lookup").type());
    assertEquals(VindexType.BINARY_MD5, v.primaryVindex("corder_sku_lookup").type());
    assertEquals("customer_id", v.table("customer").orElseThrow().primaryVindex().get().column());
    assertEquals("reference", v.table("country").orElseThrow().type());
  }

  @Test
  void thePrimaryVindexPlacesRows() {
    VSchema v = VSchema.parse(customerVSchemaJson());
    assertEquals("166b40b44aba4bd6", v.primaryVindex("customer").functional().keyspaceId(1L).hex());
    assertEquals(
        "d01ab7e4d6978f0b",
        v.primaryVindex("customer_email_lookup").functional().keyspaceId("test1").hex());
  }

  @Test
  void readsLookupVindexes() {
    VSchema v = VSchema.parse(customerVSchemaJson());
    VindexDefinition email = v.vindexes().get("customer_email_lookup");
    assertEquals(VindexType.CONSISTENT_LOOKUP_UNIQUE, email.type());
    assertEquals("customer", email.owner().orElseThrow());
    assertEquals("true", email.params().get("ignore_nulls"));
    LookupVindexSpec spec = email.lookup();
    assertEquals("customer.customer_email_lookup", spec.table());
    assertEquals(List.of("email"), spec.fromColumns());
    assertEquals("keyspace_id", spec.toColumn());
    LookupVindexSpec sku = v.vindexes().get("corder_sku_lookup").lookup();
    assertEquals(List.of("sku", "order_id"), sku.fromColumns());
    assertTrue(sku.owner().isEmpty());
    ColumnVindex second = v.table("corder").orElseThrow().columnVindexes().get(1);
    assertEquals(List.of("sku", "order_id"), second.columns());
    assertThrows(IllegalArgumentException.class, email::functional);
    assertThrows(IllegalArgumentException.class, () -> v.vindexes().get("hash").lookup());
  }

  @Test
  void keepsTheDocumentForARoundTrip() {
    VSchema v = VSchema.parse(customerVSchemaJson());
    assertEquals(
        "product.customer_seq", v.toJson().at("/tables/customer/auto_increment/sequence").asText());
    assertEquals(v, VSchema.fromJson(v.toJson()));
    assertEquals("unmanaged", v.toJson().path("foreign_key_mode").asText());
  }

  @Test
  void anUnshardedKeyspaceNeedsNoVindex() {
    VSchema v =
        VSchema.parse("{\"tables\": {\"customer_seq\": {\"type\": \"sequence\"}, \"t\": {}}}");
    assertFalse(v.sharded());
    assertTrue(v.table("t").orElseThrow().primaryVindex().isEmpty());
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> v.primaryVindex("t"));
    assertTrue(e.getMessage().contains("\"t\""), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> v.primaryVindex("nope"));
  }

  @Test
  void anUnknownVindexTypeIsNamed() {
    VSchemaException e =
        refused("{\"sharded\": true, \"vindexes\": {\"u\": {\"type\": \"unicode_loose_md5\"}}}");
    assertEquals(1, e.problems().size());
    assertTrue(
        e.getMessage().contains("vindex u: unknown vindex type \"unicode_loose_md5\""),
        e.getMessage());
  }

  @Test
  void anUndefinedVindexIsNamedWithItsTableAndColumn() {
    VSchemaException e =
        refused(
            "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"}},"
                + " \"tables\": {\"t\": {\"column_vindexes\": [{\"column\": \"id\", \"name\": \"hsah\"}]}}}");
    assertEquals(
        List.of("table t column id: vindex \"hsah\" is not defined in \"vindexes\""), e.problems());
  }

  @Test
  void aBadVindexIsNotAlsoReportedAsUndefined() {
    VSchemaException e =
        refused(
            "{\"sharded\": true, \"vindexes\": {\"v\": {\"type\": \"region_json\"}},"
                + " \"tables\": {\"t\": {\"column_vindexes\": [{\"column\": \"id\", \"name\": \"v\"}]}}}");
    assertEquals(1, e.problems().size(), e.getMessage());
  }

  @Test
  void aLookupVindexNeedsItsTableAndColumns() {
    VSchemaException e =
        refused(
            "{\"sharded\": true, \"vindexes\": {\"l\": {\"type\": \"lookup_unique\","
                + " \"params\": {\"table\": \"l\", \"from\": \"c\"}}}}");
    assertEquals(List.of("lookup vindex l (lookup_unique) lacks params to"), e.problems());
  }

  @Test
  void aShardedTableNeedsAUniquePrimaryVindex() {
    VSchemaException e =
        refused(
            "{\"sharded\": true,"
                + " \"vindexes\": {\"l\": {\"type\": \"lookup\","
                + "   \"params\": {\"table\": \"l\", \"from\": \"c\", \"to\": \"k\"}}},"
                + " \"tables\": {\"a\": {}, \"b\": {\"column_vindexes\": [{\"column\": \"c\", \"name\": \"l\"}]}}}");
    assertEquals(2, e.problems().size(), e.getMessage());
    assertTrue(e.problems().get(0).startsWith("table a has no column_vindexes"), e.getMessage());
    assertTrue(
        e.problems().get(1).startsWith("table b: primary vindex l (lookup) is not unique"),
        e.getMessage());
  }

  @Test
  void aFunctionalVindexMapsOneColumn() {
    VSchemaException e =
        refused(
            "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"}},"
                + " \"tables\": {\"t\": {\"column_vindexes\": [{\"columns\": [\"a\", \"b\"], \"name\": \"hash\"}]}}}");
    assertTrue(
        e.getMessage().contains("table t column a,b: vindex hash (hash) maps a single column"),
        e.getMessage());
  }

  @Test
  void listsEveryProblemAtOnce() {
    VSchemaException e =
        refused(
            "{\"sharded\": \"yes\", \"vindexes\": {\"x\": {}, \"y\": {\"type\": \"nope\"}},"
                + " \"tables\": {\"t\": {\"column_vindexes\": [{\"name\": \"x\"}]}}}");
    assertEquals(4, e.problems().size(), e.getMessage());
    assertTrue(e.getMessage().startsWith("invalid vschema: \"sharded\" must be true or false"));
  }

  @Test
  void refusesWhatIsNotAVSchema() {
    assertTrue(refused("{\"sharded\": true,").getMessage().contains("not valid JSON"));
    assertTrue(refused("[]").getMessage().contains("must be a JSON object"));
    assertTrue(refused("").getMessage().contains("must be a JSON object"));
    assertTrue(
        refused("{\"vindexes\": {\"a\": {\"type\": \"hash\"}, \"a\": {\"type\": \"xxhash\"}}}")
            .getMessage()
            .contains("Duplicate field 'a'"));
  }

  @Test
  void readsAnAutoIncrementAndItsSequence() {
    VSchema v = VSchema.parse(customerVSchemaJson());
    AutoIncrement ai = v.table("customer").orElseThrow().autoIncrement().orElseThrow();
    assertEquals("customer_id", ai.column());
    assertEquals("product", ai.sequenceKeyspace());
    assertEquals("customer_seq", ai.sequenceTable());
    assertEquals(
        "product.order_seq", v.table("corder").orElseThrow().autoIncrement().get().sequence());
    assertTrue(v.table("country").orElseThrow().autoIncrement().isEmpty());
    VSchema seq = VSchema.parse("{\"tables\": {\"customer_seq\": {\"type\": \"sequence\"}}}");
    assertTrue(seq.table("customer_seq").orElseThrow().isSequence());
  }

  private static String withAutoIncrement(String table, String autoIncrement) {
    return "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"}}, \"tables\": {\""
        + table
        + "\": {\"column_vindexes\": [{\"column\": \"id\", \"name\": \"hash\"}],"
        + " \"auto_increment\": "
        + autoIncrement
        + "}, \"country\": {\"type\": \"reference\", \"auto_increment\": {\"column\": \"id\","
        + " \"sequence\": \"s.country_seq\"}}}}";
  }

  @Test
  void aBadAutoIncrementIsRefusedWithEveryProblem() {
    VSchemaException e =
        refused(withAutoIncrement("t", "{\"column\": \"id\", \"sequence\": \"t_seq\"}"));
    assertEquals(2, e.problems().size(), e.getMessage());
    assertTrue(
        e.problems()
            .get(0)
            .contains(
                "table t: \"auto_increment\": sequence \"t_seq\" must be named"
                    + " keyspace.table"),
        e.getMessage());
    assertTrue(
        e.problems()
            .get(1)
            .contains("table country: \"auto_increment\" is not allowed on a reference" + " table"),
        e.getMessage());
    assertEquals(
        List.of(
            "table t: \"auto_increment\" names no \"column\" (the column to fill from the sequence)",
            "table t: \"auto_increment\" names no \"sequence\" (the sequence table, as keyspace.table)"),
        refused(withAutoIncrement("t", "{}")).problems().subList(0, 2));
    assertTrue(
        refused(withAutoIncrement("t", "\"id\""))
            .problems()
            .get(0)
            .startsWith("table t: \"auto_increment\" must be a JSON object"));
    assertTrue(
        refused(withAutoIncrement("t", "{\"column\": 1, \"sequence\": \"a.b\"}"))
            .problems()
            .get(0)
            .contains("\"column\" must be a string"));
    assertTrue(
        refused(withAutoIncrement("t", "{\"column\": \"id\", \"sequence\": \"a.b.c\"}"))
            .problems()
            .get(0)
            .contains("must be named keyspace.table"));
  }

  @Test
  void aSequenceTableInAShardedKeyspaceIsRefused() {
    VSchemaException e =
        refused("{\"sharded\": true, \"tables\": {\"t_seq\": {\"type\": \"sequence\"}}}");
    assertEquals(1, e.problems().size(), e.getMessage());
    assertTrue(
        e.problems()
            .get(0)
            .contains("table t_seq is a sequence table, but this keyspace is sharded"),
        e.getMessage());
  }
}
