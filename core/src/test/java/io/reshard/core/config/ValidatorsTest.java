package io.reshard.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ValidatorsTest {
  @Test
  void problemTextsFollowTheKey() {
    assertNull(Validators.any().apply(""));
    assertEquals("must not be blank", Validators.nonBlank().apply(" "));
    assertEquals(
        "is not a topic name ([A-Za-z0-9._-]{1,200})",
        Validators.matches(Validators.TOPIC, "a topic name").apply("a b"));
    assertEquals("must match [A-Za-z0-9_$]{1,64}", Validators.matches(Validators.NAME).apply("-"));
    assertNull(Validators.emptyOrMatches(Validators.NAME, "a database name").apply(""));
    assertEquals(
        "is not a database name",
        Validators.emptyOrMatches(Validators.NAME, "a database name").apply("a-b"));
    assertEquals("must be one of [a, b]", Validators.oneOf("a", "b").apply("c"));
    assertNull(Validators.bool().apply("false"));
    assertEquals("must be between 1 and 5", Validators.intRange(1, 5).apply("6"));
    assertEquals("is not an integer", Validators.intRange(1, 5).apply("1.5"));
    assertEquals("is not an integer", Validators.intRange(1, 5).apply("4294967296"));
    assertNull(Validators.longRange(1, 4294967295L).apply("4294967295"));
    assertEquals("must be between 0 and 9", Validators.longRange(0, 9).apply("-1"));
    assertNull(Validators.shardName().apply("40-80"));
    assertTrue(
        Validators.shardName().apply("zz").startsWith("is not a shard name like -80, 40-80"));
    assertNull(Validators.emptyOrAtLeast(16).apply(""));
    assertEquals(
        "must be empty (mutating calls off) or at least 16 characters",
        Validators.emptyOrAtLeast(16).apply("short"));
    assertTrue(Validators.HOST.matcher("[::1]").matches());
  }
}
