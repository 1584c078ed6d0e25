package io.reshard.cdc.capture;

import io.reshard.cdc.capture.Statement.TableRef;
import io.reshard.cdc.capture.Statement.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Classifies the statement of a QUERY event: transaction control, XA, DML logged as a statement,
 * TRUNCATE, partition truncates and drops, other DDL; and finds the tables it names. A small
 * tokenizer, not a SQL parser: it reads keywords and (possibly quoted and qualified) identifiers at
 * the start of the statement, which is where MariaDB's binlogged DDL names its tables. Comments are
 * skipped; the body of a versioned comment {@code /*!NNNNN ... *}{@code /} is read as SQL, as the
 * server does. Stateless.
 */
final class StatementClassifier {

  private static final Set<String> DML = Set.of("INSERT", "REPLACE", "UPDATE", "DELETE", "LOAD");
  private static final Set<String> OBJECTS =
      Set.of("VIEW", "TRIGGER", "PROCEDURE", "FUNCTION", "EVENT", "USER", "ROLE", "SERVER");

  private StatementClassifier() {}

  /**
   * @param sql the statement
   * @param defaultDatabase the session's database from the QUERY event, or null
   */
  static Statement classify(String sql, String defaultDatabase) {
    List<String> t = SqlTokens.tokenize(sql, 64);
    if (t.isEmpty()) {
      return Statement.of(Type.OTHER);
    }
    String first = upper(t, 0);
    String second = upper(t, 1);
    return switch (first) {
      case "BEGIN" -> Statement.of(Type.BEGIN);
      case "START" -> Statement.of("TRANSACTION".equals(second) ? Type.BEGIN : Type.OTHER);
      case "COMMIT" -> Statement.of(Type.COMMIT);
      case "ROLLBACK" -> Statement.of("TO".equals(second) ? Type.OTHER : Type.ROLLBACK);
      case "XA" -> Statement.of(Type.XA);
      case "TRUNCATE" -> truncate(t, defaultDatabase);
      case "CREATE", "ALTER", "DROP", "RENAME" -> ddl(t, first, defaultDatabase);
      default ->
          DML.contains(first)
              ? new Statement(Type.DML, dmlTables(t, defaultDatabase), null, List.of())
              : Statement.of(Type.OTHER);
    };
  }

  private static Statement truncate(List<String> t, String db) {
    int i = "TABLE".equals(upper(t, 1)) ? 2 : 1;
    return new Statement(Type.TRUNCATE, List.of(ref(t, i, db)), null, List.of());
  }

  private static Statement ddl(List<String> t, String verb, String db) {
    int i = 1;
    while (i < t.size() && isModifier(upper(t, i))) {
      i++; // OR REPLACE, TEMPORARY, ONLINE, IGNORE, UNIQUE, FULLTEXT, SPATIAL, DEFINER=...
    }
    String object = upper(t, i);
    String type = verb.equals("RENAME") ? "ALTER" : verb;
    if ("DATABASE".equals(object) || "SCHEMA".equals(object)) {
      int j = skipIfExists(t, i + 1);
      return new Statement(
          Type.DDL, List.of(new TableRef(t.size() > j ? t.get(j) : null, null)), null, List.of());
    }
    if ("INDEX".equals(object)) {
      int on = indexOf(t, "ON", i);
      return on < 0
          ? Statement.of(Type.OTHER)
          : new Statement(Type.DDL, List.of(ref(t, on + 1, db)), "ALTER", List.of());
    }
    if ("SEQUENCE".equals(object) || "TABLE".equals(object) || "TABLES".equals(object)) {
      List<TableRef> tables = tableList(t, skipIfExists(t, i + 1), db);
      if (verb.equals("ALTER") && !tables.isEmpty()) {
        return alterTable(t, tables.get(0));
      }
      return new Statement(Type.DDL, tables, type, List.of());
    }
    if (OBJECTS.contains(object)) {
      return Statement.of(Type.OTHER);
    }
    return Statement.of(Type.OTHER);
  }

  /** ALTER TABLE t ... [TRUNCATE|DROP] PARTITION p1, p2 */
  private static Statement alterTable(List<String> t, TableRef table) {
    for (int i = 0; i + 1 < t.size(); i++) {
      String verb = upper(t, i);
      if ((verb.equals("TRUNCATE") || verb.equals("DROP")) && "PARTITION".equals(upper(t, i + 1))) {
        List<String> parts = new ArrayList<>();
        for (int j = i + 2; j < t.size(); j += 2) {
          parts.add(t.get(j));
          if (!",".equals(t.size() > j + 1 ? t.get(j + 1) : null)) {
            break;
          }
        }
        Type type = verb.equals("TRUNCATE") ? Type.TRUNCATE_PARTITION : Type.DROP_PARTITION;
        return new Statement(type, List.of(table), "ALTER", parts);
      }
    }
    return new Statement(Type.DDL, List.of(table), "ALTER", List.of());
  }

  /** {@code a [, b]...} and {@code a TO b [, c TO d]} (RENAME): every table named. */
  private static List<TableRef> tableList(List<String> t, int i, String db) {
    List<TableRef> out = new ArrayList<>();
    while (i < t.size()) {
      out.add(ref(t, i, db));
      i += ".".equals(t.size() > i + 1 ? t.get(i + 1) : null) ? 3 : 1;
      String next = upper(t, i);
      if (",".equals(next) || "TO".equals(next)) {
        i++;
      } else {
        break;
      }
    }
    return out;
  }

  private static List<TableRef> dmlTables(List<String> t, String db) {
    int i = 1;
    while (i < t.size() && isDmlModifier(upper(t, i))) {
      i++;
    }
    String first = upper(t, 0);
    if (first.equals("LOAD")) {
      int into = indexOf(t, "TABLE", 1);
      return into < 0 ? List.of() : List.of(ref(t, into + 1, db));
    }
    if (first.equals("DELETE")) {
      int from = indexOf(t, "FROM", 1);
      return from < 0 ? List.of() : List.of(ref(t, from + 1, db));
    }
    if ("INTO".equals(upper(t, i))) {
      i++;
    }
    return List.of(ref(t, i, db));
  }

  private static TableRef ref(List<String> t, int i, String db) {
    if (i >= t.size()) {
      return new TableRef(db, null);
    }
    if (".".equals(t.size() > i + 1 ? t.get(i + 1) : null) && i + 2 < t.size()) {
      return new TableRef(t.get(i), t.get(i + 2));
    }
    return new TableRef(db, t.get(i));
  }

  private static int skipIfExists(List<String> t, int i) {
    if ("IF".equals(upper(t, i))) {
      i += "NOT".equals(upper(t, i + 1)) ? 3 : 2;
    }
    return i;
  }

  private static boolean isModifier(String word) {
    return Set.of(
            "OR",
            "REPLACE",
            "TEMPORARY",
            "ONLINE",
            "OFFLINE",
            "IGNORE",
            "UNIQUE",
            "FULLTEXT",
            "SPATIAL",
            "DEFINER",
            "=",
            "SQL",
            "SECURITY",
            "ALGORITHM",
            "NO_WRITE_TO_BINLOG",
            "LOCAL")
        .contains(word);
  }

  private static boolean isDmlModifier(String word) {
    return Set.of("LOW_PRIORITY", "DELAYED", "HIGH_PRIORITY", "IGNORE", "QUICK").contains(word);
  }

  private static int indexOf(List<String> t, String word, int from) {
    for (int i = from; i < t.size(); i++) {
      if (word.equals(upper(t, i))) {
        return i;
      }
    }
    return -1;
  }

  private static String upper(List<String> t, int i) {
    return i < t.size() ? t.get(i).toUpperCase(Locale.ROOT) : "";
  }
}
