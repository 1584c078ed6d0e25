package io.reshard.core.position;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class GtidPositionTest {
  private static final String U1 = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
  private static final String U2 = "8a94f357-aab4-11df-86ab-c80aa9429562";

  @Test
  void mariaDbListParsesAndPrintsSortedByDomain() {
    GtidPosition p = GtidPosition.parse(" 7-3-12, 0-1-100 ");
    assertEquals("0-1-100,7-3-12", p.toString());
    assertEquals(GtidPosition.Flavor.MARIADB, p.flavor().orElseThrow());
    assertEquals(p, GtidPosition.parse(p.toString()));
  }

  @Test
  void mariaDbSequenceIsUnsigned64Bit() {
    GtidPosition p = GtidPosition.parse("1-4294967295-18446744073709551615");
    assertEquals("1-4294967295-18446744073709551615", p.toString());
    assertTrue(p.contains("1-1-18446744073709551614"));
  }

  @Test
  void mariaDbRejectsMalformedEntriesAndRepeatedDomains() {
    for (String bad :
        new String[] {"1-1", "1-1-x", "a-1-1", "1-1-1-1", "-1-1-1", "1-4294967296-1"}) {
      assertThrows(IllegalArgumentException.class, () -> GtidPosition.parse(bad), bad);
    }
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> GtidPosition.parse("1-1-5,1-2-6"));
    assertTrue(e.getMessage().contains("domain 1 twice"), e.getMessage());
  }

  @Test
  void mariaDbWithReplacesTheDomainsEntry() {
    GtidPosition p = GtidPosition.parse("1-1-5").with("1-1-6").with("7-1-1");
    assertEquals("1-1-6,7-1-1", p.toString());
    assertEquals("1-1-6", GtidPosition.EMPTY.with("1-1-6").toString());
  }

  @Test
  void mariaDbCoversComparesSequencePerDomain() {
    GtidPosition p = GtidPosition.parse("1-1-10,2-2-5");
    assertTrue(p.covers(GtidPosition.parse("1-1-10")));
    assertTrue(p.covers(GtidPosition.parse("1-1-3,2-2-5")));
    assertFalse(p.covers(GtidPosition.parse("1-1-11")));
    assertFalse(p.covers(GtidPosition.parse("3-3-1")), "a domain it has not seen");
    assertTrue(p.covers(GtidPosition.EMPTY));
    assertFalse(GtidPosition.EMPTY.covers(p));
    assertTrue(p.contains("2-9-4"), "the server id does not matter for coverage");
  }

  @Test
  void mySqlSetParsesMergesAndPrintsCanonically() {
    GtidPosition p = GtidPosition.parse(U2.toUpperCase() + ":1-5:7,\n" + U1 + ":3-9:1-2:11");
    assertEquals(GtidPosition.Flavor.MYSQL, p.flavor().orElseThrow());
    assertEquals(U1 + ":1-9:11," + U2 + ":1-5:7", p.toString());
    assertEquals(p, GtidPosition.parse(p.toString()));
  }

  @Test
  void mySqlWithAddsAndMergesIntervals() {
    GtidPosition p = GtidPosition.parse(U1 + ":1-5:7").with(U1 + ":6");
    assertEquals(U1 + ":1-7", p.toString());
    assertEquals(U1 + ":1-7," + U2 + ":1", p.with(U2 + ":1").toString());
  }

  @Test
  void mySqlCoversChecksIntervalContainment() {
    GtidPosition p = GtidPosition.parse(U1 + ":1-10:20-30");
    assertTrue(p.covers(GtidPosition.parse(U1 + ":2-9:25")));
    assertFalse(p.covers(GtidPosition.parse(U1 + ":9-21")));
    assertFalse(p.covers(GtidPosition.parse(U2 + ":1")));
    assertTrue(p.contains(U1 + ":30"));
    assertFalse(p.contains(U1 + ":31"));
  }

  @Test
  void mySqlRejectsTagsBadUuidsAndEmptyIntervals() {
    for (String bad :
        new String[] {U1 + ":tag:1-5", "nouuid:1-5", U1 + ":5-3", U1 + ":0", U1, U1 + ":1-2-3"}) {
      assertThrows(IllegalArgumentException.class, () -> GtidPosition.parse(bad), bad);
    }
  }

  @Test
  void mySql84TaggedGtidsAreRefusedNamingTheTagAndTheFix() {
    String set = U1 + ":1-10,\n" + U2 + ":1-3:batch:1-4";
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> GtidPosition.parseMySql(set));
    assertTrue(e.getMessage().contains("MySQL 8.4's uuid:tag:n"), e.getMessage());
    assertTrue(e.getMessage().contains(U2 + ":1-3:batch:1-4"), e.getMessage());
    assertTrue(e.getMessage().contains("gtid_next"), e.getMessage());
  }

  @Test
  void mySqlSetsAsTheServerPrintsThemParseAcrossLines() {
    GtidPosition p = GtidPosition.parseMySql(U2 + ":1-3:7,\n" + U1 + ":5:1-4");
    assertEquals(U1 + ":1-5," + U2 + ":1-3:7", p.toString());
    assertEquals(GtidPosition.Flavor.MYSQL, p.flavor().orElseThrow());
    assertTrue(GtidPosition.parseMySql("").isEmpty());
  }

  @Test
  void eachFlavorHasItsDriverAndItsPositionVariable() {
    assertEquals(
        "jdbc:mysql://127.0.0.1:3306/ks",
        ServerPositions.jdbcUrl(GtidPosition.Flavor.MYSQL, "127.0.0.1", 3306, "ks"));
    assertEquals(
        "jdbc:mariadb://h:1/", ServerPositions.jdbcUrl(GtidPosition.Flavor.MARIADB, "h", 1, ""));
    assertEquals(
        "@@GLOBAL.gtid_executed", ServerPositions.positionVariable(GtidPosition.Flavor.MYSQL));
    assertEquals(
        "@@GLOBAL.gtid_binlog_pos", ServerPositions.positionVariable(GtidPosition.Flavor.MARIADB));
    assertEquals(GtidPosition.Flavor.MYSQL, ServerPositions.parseFlavor("MySQL"));
    assertEquals(GtidPosition.Flavor.MARIADB, ServerPositions.parseFlavor(null));
    assertThrows(IllegalArgumentException.class, () -> ServerPositions.parseFlavor("postgres"));
  }

  @Test
  void flavorsDoNotMixAndNeverCoverEachOther() {
    GtidPosition maria = GtidPosition.parse("1-1-1");
    GtidPosition mysql = GtidPosition.parse(U1 + ":1");
    assertThrows(IllegalArgumentException.class, () -> maria.with(U1 + ":2"));
    assertThrows(IllegalArgumentException.class, () -> mysql.with("1-1-2"));
    assertFalse(maria.covers(mysql));
    assertFalse(mysql.covers(maria));
  }

  @Test
  void blankIsTheEmptyPosition() {
    assertSame(GtidPosition.EMPTY, GtidPosition.parse(""));
    assertSame(GtidPosition.EMPTY, GtidPosition.parse("  "));
    assertTrue(GtidPosition.EMPTY.isEmpty());
    assertEquals("", GtidPosition.EMPTY.toString());
    assertTrue(GtidPosition.EMPTY.flavor().isEmpty());
  }
}
