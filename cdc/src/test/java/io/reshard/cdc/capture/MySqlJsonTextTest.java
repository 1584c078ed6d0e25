package io.reshard.cdc.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * MySQL's text of a JSON double; the whole documents are checked against a server by {@code
 * MySqlTypeMatrixIT}.
 */
class MySqlJsonTextTest {
  @ParameterizedTest
  @CsvSource({
    "3.0, 3.0",
    "2.5, 2.5",
    "0.1, 0.1",
    "-2.5e-7, -0.00000025",
    "1e-15, 0.000000000000001",
    "1e-16, 1e-16",
    "123456789.125, 123456789.125",
    "1e15, 1e15",
    "123456789012345, 123456789012345.0",
    "1.5e15, 1.5e15",
    "1234567890123456.7, 1234567890123456.8",
    "1e20, 1e20",
    "-1.7976931348623157e308, -1.7976931348623157e308",
    "-0.0, -0.0",
    "0, 0.0"
  })
  void aDoubleIsWrittenAsMySqlWritesIt(double value, String text) {
    assertEquals(text, MySqlJsonText.doubleText(value));
  }
}
