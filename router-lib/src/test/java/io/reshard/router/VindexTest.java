package io.reshard.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** Vectors from Vitess's own vindex tests (hash_test.go, xxhash_test.go, binarymd5_test.go). */
class VindexTest {
  private static final Vindex HASH = Vindex.of(VindexType.HASH);
  private static final Vindex XXHASH = Vindex.of(VindexType.XXHASH);
  private static final Vindex MD5 = Vindex.of(VindexType.BINARY_MD5);
  private static final Vindex NUMERIC = Vindex.of(VindexType.NUMERIC);

  @ParameterizedTest(name = "hash({0}) = {1}")
  @CsvSource({
    "1, 166b40b44aba4bd6",
    "2, 06e7ea22ce92708f",
    "3, 4eb190c9a2fa169c",
    "4, d2fd8867d50d2dfe",
    "5, 70bb023c810ca87a",
    "6, f098480ac4c4be71",
    "0, 8ca64de9c1b123a7",
    "-1, 355550b2150e2451",
    "18446744073709551615, 355550b2150e2451",
    "9223372036854775807, f77d48aadda1f1bb",
    "-9223372036854775808, 95f8a5e5dd31d900"
  })
  void hashMatchesVitess(String value, String ksid) {
    assertEquals(ksid, HASH.keyspaceId(value).hex());
    assertEquals(ksid, HASH.keyspaceId(new BigInteger(value)).hex());
  }

  @Test
  void hashOfEveryIntegerTypeAgrees() {
    assertEquals("166b40b44aba4bd6", HASH.keyspaceId(1L).hex());
    assertEquals("166b40b44aba4bd6", HASH.keyspaceId(1).hex());
    assertEquals("166b40b44aba4bd6", HASH.keyspaceId((short) 1).hex());
    assertEquals("166b40b44aba4bd6", HASH.keyspaceId((byte) 1).hex());
    assertEquals("355550b2150e2451", HASH.keyspaceId(-1L).hex(), "two's complement of -1");
    assertEquals("166b40b44aba4bd6", HASH.keyspaceId("+1").hex());
    assertEquals("166b40b44aba4bd6", HASH.keyspaceId("0001").hex());
  }

  @Test
  void hashKeepsATrailingZeroByteOfTheKsid() {
    KeyspaceId k = HASH.keyspaceId(Long.MIN_VALUE);
    assertEquals(8, k.length());
    assertEquals("95f8a5e5dd31d900", k.hex());
  }

  @Test
  void hashIsThreadSafe() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Callable<String>> tasks =
          IntStream.range(0, 2000)
              .mapToObj(i -> (Callable<String>) () -> HASH.keyspaceId(1 + i % 2).hex())
              .toList();
      List<Future<String>> results = pool.invokeAll(tasks);
      for (int i = 0; i < results.size(); i++) {
        assertEquals(i % 2 == 0 ? "166b40b44aba4bd6" : "06e7ea22ce92708f", results.get(i).get());
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @ParameterizedTest(name = "xxhash(\"{0}\") = {1}")
  @CsvSource({
    "test1, d01ab7e4d6978f0b",
    "test2, 87eb11714c0a0e89",
    "testaverylongvaluetomakesurethisworks, 81d8c38e0d850e6a"
  })
  void xxhashOfTextMatchesVitess(String value, String ksid) {
    assertEquals(ksid, XXHASH.keyspaceId(value).hex());
    assertEquals(ksid, XXHASH.keyspaceId(value.getBytes(StandardCharsets.UTF_8)).hex());
  }

  @ParameterizedTest(name = "xxhash({0}) = {1}")
  @CsvSource({
    "1, d46405367612b4b7",
    "-1, d8e2a6a7c8c7623d",
    "18446744073709551615, 477cfa8d6d8f1f8d",
    "9223372036854775807, b37eb01f7bffafd8",
    "-9223372036854775808, 102c27ddb26a609e"
  })
  void xxhashOfIntegersHashesTheirDecimalText(String value, String ksid) {
    assertEquals(ksid, XXHASH.keyspaceId(new BigInteger(value)).hex());
    assertEquals(ksid, XXHASH.keyspaceId(value).hex(), "the text gives the same ksid");
  }

  @Test
  void xxhashOfLongAndIntegerIsTheirText() {
    assertEquals("d46405367612b4b7", XXHASH.keyspaceId(1L).hex());
    assertEquals("d46405367612b4b7", XXHASH.keyspaceId(1).hex());
    assertEquals("d8e2a6a7c8c7623d", XXHASH.keyspaceId(-1L).hex());
  }

  @Test
  void binaryMd5MatchesVitessAndIs16Bytes() {
    KeyspaceId k = MD5.keyspaceId("Test");
    assertEquals("0cbc6611f5540bd0809a388dc95a615b", k.hex());
    assertEquals(16, k.length());
    assertEquals(k, MD5.keyspaceId("Test".getBytes(StandardCharsets.US_ASCII)));
    // md5("1"), the decimal text of the integer 1
    assertEquals("c4ca4238a0b923820dcc509a6f75849b", MD5.keyspaceId(1L).hex());
  }

  @Test
  void stringsAreHashedAsUtf8() {
    // md5 of the two UTF-8 bytes c3 a9 of "é", not of a one-byte Latin-1 encoding
    assertEquals(MD5.keyspaceId(new byte[] {(byte) 0xc3, (byte) 0xa9}), MD5.keyspaceId("\u00e9"));
  }

  @Test
  void numericIsTheBigEndianValue() {
    assertEquals("0000000000000001", NUMERIC.keyspaceId(1L).hex());
    assertEquals("0000000000000001", NUMERIC.keyspaceId("1").hex());
    assertEquals("ffffffffffffffff", NUMERIC.keyspaceId(-1L).hex());
    assertEquals("ffffffffffffffff", NUMERIC.keyspaceId("18446744073709551615").hex());
    assertEquals("8000000000000000", NUMERIC.keyspaceId(Long.MIN_VALUE).hex());
  }

  @ParameterizedTest
  @EnumSource(
      value = VindexType.class,
      names = {"HASH", "XXHASH", "BINARY_MD5", "NUMERIC"})
  void nullHasNoKsid(VindexType type) {
    UnmappableValueException e =
        assertThrows(UnmappableValueException.class, () -> Vindex.of(type).keyspaceId(null));
    assertEquals(type, e.vindexType());
    assertEquals("NULL", e.value());
    assertTrue(e.getMessage().contains("NULL sharding key has no keyspace id"), e.getMessage());
  }

  @Test
  void integerVindexesRefuseNonIntegers() {
    for (Vindex v : List.of(HASH, NUMERIC)) {
      assertRefused(v, "abc", "\"abc\"", "not a decimal integer");
      assertRefused(v, "1.5", "\"1.5\"", "not a decimal integer");
      assertRefused(v, " 1", "\" 1\"", "not a decimal integer");
      assertRefused(v, "", "\"\"", "not a decimal integer");
      assertRefused(v, "18446744073709551616", "\"18446744073709551616\"", "out of range");
      assertRefused(v, "-9223372036854775809", "\"-9223372036854775809\"", "out of range");
      assertRefused(
          v, BigInteger.ONE.shiftLeft(64), "18446744073709551616 (BigInteger)", "out of range");
      assertRefused(v, 1.0d, "1.0 (Double)", "not Double");
      assertRefused(v, new byte[] {1}, "0x01", "not byte[]");
    }
  }

  @Test
  void byteVindexesRefuseAmbiguousTypes() {
    for (Vindex v : List.of(XXHASH, MD5)) {
      assertRefused(v, 1.5d, "1.5 (Double)", "not Double");
      assertRefused(v, true, "true (Boolean)", "not Boolean");
      assertRefused(
          v, BigInteger.ONE.shiftLeft(64), "18446744073709551616 (BigInteger)", "out of range");
    }
  }

  @Test
  void aLookupTypeHasNoFunction() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> Vindex.of(VindexType.CONSISTENT_LOOKUP_UNIQUE));
    assertTrue(e.getMessage().contains("LookupVindexSpec"), e.getMessage());
  }

  @Test
  void typesAreNamedAsInVitess() {
    assertEquals(VindexType.BINARY_MD5, VindexType.fromVitessName("binary_md5"));
    assertEquals("consistent_lookup_unique", VindexType.CONSISTENT_LOOKUP_UNIQUE.vitessName());
    assertTrue(VindexType.LOOKUP_UNIQUE.isUnique() && VindexType.LOOKUP_UNIQUE.isLookup());
    assertTrue(!VindexType.LOOKUP.isUnique() && VindexType.HASH.isFunctional());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> VindexType.fromVitessName("unicode_loose_md5"));
    assertTrue(e.getMessage().contains("\"unicode_loose_md5\""), e.getMessage());
    assertTrue(e.getMessage().contains("hash, xxhash"), e.getMessage());
  }

  @Test
  void lookupSpecReadsVitessParams() {
    LookupVindexSpec spec =
        LookupVindexSpec.fromParams(
            "name_user_idx",
            VindexType.LOOKUP,
            Map.of("table", "user.name_user_idx", "from", "name, region", "to", "keyspace_id"),
            java.util.Optional.of("user"));
    assertEquals("user.name_user_idx", spec.table());
    assertEquals(List.of("name", "region"), spec.fromColumns());
    assertEquals("keyspace_id", spec.toColumn());
    assertEquals("user", spec.owner().orElseThrow());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                LookupVindexSpec.fromParams(
                    "bad",
                    VindexType.LOOKUP_UNIQUE,
                    Map.of("from", "c"),
                    java.util.Optional.empty()));
    assertEquals("lookup vindex bad (lookup_unique) lacks params table, to", e.getMessage());
  }

  private static void assertRefused(Vindex v, Object value, String printed, String reason) {
    UnmappableValueException e =
        assertThrows(UnmappableValueException.class, () -> v.keyspaceId(value), printed);
    assertEquals(printed, e.value());
    assertTrue(
        e.getMessage().startsWith("vindex " + v.type() + " cannot map " + printed), e.getMessage());
    assertTrue(e.getMessage().contains(reason), e.getMessage());
  }
}
