package io.reshard.switcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.core.position.GtidPosition.Flavor;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MixedFlavorsTest {

  @Test
  void serversOfOneFlavorPass() {
    assertEquals(
        Optional.empty(),
        CreatePhase.mixedFlavors(Map.of("db1", Flavor.MYSQL, "db5", Flavor.MYSQL)));
    assertEquals(
        Optional.empty(),
        CreatePhase.mixedFlavors(Map.of("db1", Flavor.MARIADB, "db5", Flavor.MARIADB)));
  }

  @Test
  void mixedServersAreRefusedNamingEachServerAndItsFlavor() {
    Map<String, Flavor> servers = new LinkedHashMap<>();
    servers.put("db1", Flavor.MARIADB);
    servers.put("db5", Flavor.MYSQL);
    servers.put("db6", Flavor.MARIADB);
    String reason = CreatePhase.mixedFlavors(servers).orElseThrow();
    assertTrue(reason.contains("db1 MariaDB, db5 MySQL, db6 MariaDB"), reason);
    assertTrue(reason.contains("of the sources' flavor"), reason);
  }
}
