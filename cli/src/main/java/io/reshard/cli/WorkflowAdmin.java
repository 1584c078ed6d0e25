package io.reshard.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;

/**
 * What every {@code reshard workflow ...} verb shares, as a picocli mixin: where the daemon is
 * ({@link ClusterTarget}: {@code --cluster}/{@code --config}, {@code --output}), its admin
 * endpoint, and how the daemon's answers are printed and mapped to exit codes ({@link ExitCodes}).
 * With {@code --output json} exactly one JSON document goes to standard output; messages go to
 * standard error. Not thread-safe: one per command invocation.
 */
final class WorkflowAdmin {
  static final ObjectMapper JSON = new ObjectMapper();

  /** The spec of the workflow verb this mixin is part of. */
  @Spec(Spec.Target.MIXEE)
  CommandLine.Model.CommandSpec spec;

  @Mixin ClusterTarget target;

  /** The verb's standard output. */
  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  /** The verb's standard error. */
  PrintWriter err() {
    return spec.commandLine().getErr();
  }

  /** Whether {@code --output json} was given. */
  boolean json() {
    return target.json();
  }

  /**
   * The daemon's admin endpoint; with {@code --cluster} its daemon is started first if needed.
   *
   * @throws CommandFailure if it cannot be reached or started
   */
  AdminClient admin() throws InterruptedException {
    return target.admin(err());
  }

  /** Prints a failed read's error (as JSON with {@code --output json}); returns its code. */
  int failed(String what, AdminClient.Answer a) {
    int code = exitCode(a);
    err().println(what + ": " + runnable(a.message()));
    err().flush();
    if (json()) {
      FailureDocument.print(out(), a.message(), code);
    }
    return code;
  }

  /**
   * Performs {@code action} on workflow {@code name}, prints the answer, returns its code. A Ctrl-C
   * meanwhile says that the action goes on in the daemon ({@link InterruptNotice}).
   */
  int perform(String name, String action, Map<String, String> params) throws InterruptedException {
    AdminClient admin = admin();
    AdminClient.Answer a;
    try (InterruptNotice n =
        notice(
            "the "
                + action
                + " goes on in the daemon, which finishes it or rolls it back; watch it with "
                + statusHint(name))) {
      a = admin.act(name, action, params);
    }
    return report(a, name, admin);
  }

  /** Arms the notice that a Ctrl-C prints while this verb waits for the daemon. */
  InterruptNotice notice(String goesOn) {
    return InterruptNotice.arm("workflow " + spec.name(), out(), err(), json(), goesOn);
  }

  /**
   * {@code message} with this command's {@code --cluster DIR} (or {@code --config FILE}) in every
   * {@code reshard VERB SUBVERB} it names that lacks one, so that a hint the daemon wrote can be
   * pasted as it is.
   */
  String runnable(String message) {
    return withTarget(message, target.option());
  }

  static String withTarget(String message, String option) {
    if (message == null) {
      return null;
    }
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile(
                "(reshard (?:workflow|keyspace|shardmap|cdc|plan|daemon)(?: (?!--)[a-z][a-z-]*)?)"
                    + "(?![^`]*--(?:cluster|config)\\b)")
            .matcher(message);
    StringBuilder b = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(b, java.util.regex.Matcher.quoteReplacement(m.group(1) + " " + option));
    }
    m.appendTail(b);
    return b.toString();
  }

  /** The command that shows workflow {@code name}'s progress, in backquotes, for a message. */
  String statusHint(String name) {
    return "`reshard workflow status " + target.option() + " " + name + "`";
  }

  /**
   * Prints an action's answer and returns its exit code: the message on standard error if it
   * failed; with {@code --output json} the answer's body with the workflow's status now ({@code
   * workflow_status}), {@code exit_code}, and, if it failed, {@code error}; otherwise the message
   * on standard output if it succeeded.
   */
  int report(AdminClient.Answer a, String workflow, AdminClient admin) throws InterruptedException {
    return report(a, workflow, admin, a.message());
  }

  /**
   * As {@link #report(AdminClient.Answer, String, AdminClient)}, printing {@code okMessage} instead
   * of the answer's message on success: what is true now, after a wait.
   */
  int report(AdminClient.Answer a, String workflow, AdminClient admin, String okMessage)
      throws InterruptedException {
    int code = exitCode(a);
    if (code != ExitCodes.OK) {
      err().println(runnable(a.message()));
    }
    if (json()) {
      ObjectNode doc = a.body().isObject() ? (ObjectNode) a.body() : JSON.createObjectNode();
      AdminClient.Answer now = admin.workflow(workflow);
      if (now.status() == 200) {
        doc.set("workflow_status", now.body());
      }
      if (code != ExitCodes.OK) {
        doc.put("error", a.message());
      }
      doc.put("exit_code", code);
      out().println(doc.toString());
    } else if (code == ExitCodes.OK) {
      out().println(runnable(okMessage));
    }
    out().flush();
    err().flush();
    return code;
  }

  /**
   * The exit code of an answer: from its outcome ({@code DONE}, {@code REFUSED}, ...) if it has
   * one, else from its HTTP status.
   */
  static int exitCode(AdminClient.Answer a) {
    String outcome = a.outcome();
    if (outcome != null) {
      return switch (outcome) {
        case "DONE", "ACCEPTED" -> ExitCodes.OK;
        case "BAD_REQUEST" -> ExitCodes.USAGE;
        case "ABORTED" -> ExitCodes.CUTOVER_ABORTED;
        case "RETRY_LATER" -> ExitCodes.RETRY_LATER;
        default -> ExitCodes.REFUSED;
      };
    }
    return switch (a.status()) {
      case 200, 202 -> ExitCodes.OK;
      case 400 -> ExitCodes.USAGE;
      case 401, 403, 404, 409 -> ExitCodes.REFUSED;
      case 503 -> ExitCodes.RETRY_LATER;
      default -> ExitCodes.ERROR;
    };
  }

  /** The texts of a JSON array of a workflow record (its sources or targets), in order. */
  static List<String> texts(JsonNode array) {
    List<String> l = new ArrayList<>();
    array.forEach(n -> l.add(n.asText()));
    return l;
  }
}
