package io.reshard.core.rows;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class SessionsTest {
  @Test
  void zeroDateAndStrictModesAreRemovedTheRestKept() {
    assertEquals(
        "ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION",
        Sessions.pipelineSqlMode(
            "STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,"
                + "NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"));
    assertEquals("ANSI_QUOTES", Sessions.pipelineSqlMode("STRICT_ALL_TABLES,ANSI_QUOTES"));
    assertEquals("", Sessions.pipelineSqlMode(""));
  }
}
