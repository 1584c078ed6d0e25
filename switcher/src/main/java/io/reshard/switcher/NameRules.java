package io.reshard.switcher;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The rules for the names an operator gives, one place for each, checked before anything is
 * written. Both are plain ASCII, so a name means the same bytes to MariaDB, Kafka and a shell.
 *
 * <ul>
 *   <li>A <b>keyspace</b> name is the database's name on every shard server, a part of the change
 *       topics' names ({@code <prefix>.<keyspace>.<shard>}, where Kafka allows only ASCII letters,
 *       digits, '.', '_' and '-', and a '.' would make the name ambiguous), of the shard map's
 *       record keys and of its publisher's {@code transactional.id}: 1 to 64 ASCII letters, digits
 *       and '_', not starting with a digit (64 is MariaDB's limit for a database name).
 *   <li>A <b>workflow</b> name keys the workflows topic and names the copy state in the targets and
 *       the admin endpoint's path: 1 to 64 ASCII letters, digits, '.', '_' and '-', starting with a
 *       letter or digit.
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
public final class NameRules {
  /** Keyspace names; see the class description. */
  private static final Pattern KEYSPACE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");

  /** Workflow names; see the class description. */
  private static final Pattern WORKFLOW = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

  private NameRules() {}

  /**
   * Why {@code keyspace} cannot name a keyspace, if it cannot.
   *
   * @return the problem and the rule, e.g. for {@code café}; empty if the name is fine
   */
  public static Optional<String> keyspaceProblem(String keyspace) {
    if (keyspace != null && KEYSPACE.matcher(keyspace).matches()) {
      return Optional.empty();
    }
    return Optional.of(
        "keyspace name "
            + quoted(keyspace)
            + offending(keyspace, "[A-Za-z0-9_]")
            + ": a keyspace name is 1 to 64 ASCII letters, digits and '_', not starting with a"
            + " digit, since it names the database on every shard, the change topics"
            + " <prefix>.<keyspace>.<shard> and the shard map's records; use such a name for the"
            + " keyspace and its database");
  }

  /**
   * Why {@code name} cannot name a workflow, if it cannot.
   *
   * @return the problem and the rule; empty if the name is fine
   */
  public static Optional<String> workflowProblem(String name) {
    if (name != null && WORKFLOW.matcher(name).matches()) {
      return Optional.empty();
    }
    return Optional.of(
        "workflow name "
            + quoted(name)
            + offending(name, "[A-Za-z0-9_.-]")
            + ": use 1 to 64 ASCII letters, digits, '.', '_' and '-', starting with a letter or"
            + " digit");
  }

  private static String quoted(String name) {
    return name == null ? "(none)" : "\"" + name + "\"";
  }

  /** The first character that no position of the name allows, if any, for the message. */
  private static String offending(String name, String allowed) {
    if (name == null || name.isEmpty()) {
      return " is empty";
    }
    Pattern ok = Pattern.compile(allowed);
    for (int i = 0; i < name.length(); ) {
      int cp = name.codePointAt(i);
      String ch = new String(Character.toChars(cp));
      if (!ok.matcher(ch).matches()) {
        return " has '" + ch + "' (U+" + String.format("%04X", cp) + ")";
      }
      i += Character.charCount(cp);
    }
    return name.length() > 64 ? " has " + name.length() + " characters" : "";
  }
}
