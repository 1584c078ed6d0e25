package io.reshard.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;

/**
 * The one JSON document a command puts on standard output when it fails under {@code --output
 * json}: {@code {"error": "what happened and what to do", "exit_code": N}}, N from {@link
 * ExitCodes}. Every way a command fails ends here: a usage error ({@link UsageErrorHandler}), an
 * exception ({@link ErrorHandler}), a refusal or failure the daemon answers ({@link
 * WorkflowAdmin}), an interrupted wait ({@link InterruptNotice}). Stateless.
 */
final class FailureDocument {
  private static final ObjectMapper JSON = new ObjectMapper();

  private FailureDocument() {}

  /** The document for {@code error} and {@code exitCode}. */
  static ObjectNode of(String error, int exitCode) {
    return JSON.createObjectNode().put("error", String.valueOf(error)).put("exit_code", exitCode);
  }

  /** Prints the document as one line on {@code out} and flushes it. */
  static void print(PrintWriter out, String error, int exitCode) {
    out.println(of(error, exitCode).toString());
    out.flush();
  }

  /**
   * Whether a raw command line asks for {@code --output json} ({@code --output json} or {@code
   * --output=json} before any {@code --}). For failures that happen before picocli has a parse
   * result to ask.
   */
  static boolean requested(String[] args) {
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--")) {
        return false;
      }
      if (args[i].equals("--output=json")
          || (args[i].equals("--output") && i + 1 < args.length && args[i + 1].equals("json"))) {
        return true;
      }
    }
    return false;
  }
}
