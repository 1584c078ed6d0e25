package io.reshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cdc.CdcException;
import io.reshard.router.ReshardException;
import io.reshard.router.RetriableReshardException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Failures map to the documented exit codes; a retriable one is exit 6 with one line. */
class ErrorHandlerTest {

  @Command(name = "probe")
  static final class Probe implements Callable<Integer> {
    private final RuntimeException failure;

    @picocli.CommandLine.Option(names = "--output")
    String output = "text";

    Probe(RuntimeException failure) {
      this.failure = failure;
    }

    @Override
    public Integer call() {
      throw failure;
    }
  }

  @Test
  void everyRetriableFailureIsExitSixWithOneLineAndNoStackTrace() {
    for (RuntimeException e :
        new RuntimeException[] {
          new RetriableReshardException("broker not reachable"),
          new CdcException.Retriable("cannot reach the source db4", null)
        }) {
      StringWriter err = new StringWriter();
      int code =
          new CommandLine(new Probe(e))
              .setErr(new PrintWriter(err))
              .setExecutionExceptionHandler(new ErrorHandler())
              .execute();
      assertEquals(ExitCodes.RETRY_LATER, code, e.toString());
      assertEquals(1, err.toString().strip().lines().count(), err.toString());
      assertFalse(err.toString().contains("\tat "), err.toString());
      assertTrue(err.toString().contains(e.getMessage()), err.toString());
    }
  }

  @Test
  void aFailureWithOutputJsonIsOneJsonDocumentWithItsExitCode() throws Exception {
    StringWriter out = new StringWriter();
    int code =
        new CommandLine(new Probe(new RetriableReshardException("broker not reachable")))
            .setOut(new PrintWriter(out))
            .setErr(new PrintWriter(new StringWriter()))
            .setExecutionExceptionHandler(new ErrorHandler())
            .execute("--output", "json");
    assertEquals(ExitCodes.RETRY_LATER, code);
    com.fasterxml.jackson.databind.JsonNode json =
        new com.fasterxml.jackson.databind.ObjectMapper().readTree(out.toString());
    assertEquals("broker not reachable", json.path("error").asText());
    assertEquals(ExitCodes.RETRY_LATER, json.path("exit_code").asInt());
  }

  @Test
  void aFatalReshardFailureIsNotRetriable() {
    assertEquals(ExitCodes.ERROR, ErrorHandler.exitCodeOf(new ReshardException("no")));
    assertEquals(
        ExitCodes.ERROR, ErrorHandler.exitCodeOf(new CdcException("position lost", false, null)));
  }

  @Test
  void aServerThatDidNotAnswerInTimeIsExitSix() {
    // keyspace init against a server paused with SIGSTOP: the connection times out
    assertEquals(
        ExitCodes.RETRY_LATER,
        ErrorHandler.exitCodeOf(
            new java.sql.SQLTimeoutException("Socket timeout when connecting to 127.0.0.1:14407")));
    assertEquals(
        ExitCodes.ERROR,
        ErrorHandler.exitCodeOf(new java.sql.SQLException("Access denied", "28000", 1045)));
  }
}
