package io.reshard.core.schema;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * A trigger, view, procedure or function of a keyspace's database, as {@link SchemaObjectReader}
 * read it from a server: enough to create the same object on another server with the same definer,
 * SQL security, {@code sql_mode} and character set. Immutable; stored as JSON in a workflow's
 * record (triggers only), without its {@link #body}.
 *
 * @param kind what it is
 * @param name its name in the database
 * @param table for a trigger, the table it is defined on; null otherwise
 * @param definer the definer as {@code information_schema} shows it, e.g. {@code root@localhost}
 * @param sqlMode the {@code sql_mode} it was created under (empty for a view: a view keeps none)
 * @param characterSetClient the {@code character_set_client} it was created under
 * @param collationConnection the {@code collation_connection} it was created under
 * @param statement the server's own {@code SHOW CREATE ...} statement, with its {@code DEFINER} and
 *     {@code SQL SECURITY} clauses
 * @param body the definition's text ({@code VIEW_DEFINITION}, {@code ROUTINE_DEFINITION} or {@code
 *     ACTION_STATEMENT}) whose identifiers tell which tables it uses; null once stored
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record SchemaObject(
    Kind kind,
    String name,
    String table,
    String definer,
    @JsonProperty("sql_mode") String sqlMode,
    @JsonProperty("character_set_client") String characterSetClient,
    @JsonProperty("collation_connection") String collationConnection,
    String statement,
    @JsonIgnore String body) {

  /** The kinds of objects besides tables that a database holds and a workflow may carry. */
  public enum Kind {
    /** {@code CREATE TRIGGER}. */
    TRIGGER,
    /** {@code CREATE VIEW}. */
    VIEW,
    /** {@code CREATE PROCEDURE}. */
    PROCEDURE,
    /** {@code CREATE FUNCTION}. */
    FUNCTION;

    /** The word SQL names this kind with, e.g. {@code PROCEDURE}. */
    public String sql() {
      return name();
    }

    /** How messages name this kind, e.g. {@code procedure}. */
    public String word() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** Checks the required fields. */
  public SchemaObject {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(statement, "statement");
    sqlMode = sqlMode == null ? "" : sqlMode;
  }

  /** How messages name it, e.g. {@code view recent} or {@code trigger stamp (on messages)}. */
  public String describe() {
    return kind.word() + " " + name + (table == null ? "" : " (on " + table + ")");
  }

  /** The definer's user name: the part of {@link #definer} before its last {@code @}. */
  public String definerUser() {
    int at = definer == null ? -1 : definer.lastIndexOf('@');
    return at < 0 ? definer : definer.substring(0, at);
  }

  /** The definer's host: the part of {@link #definer} after its last {@code @}; null if none. */
  public String definerHost() {
    int at = definer == null ? -1 : definer.lastIndexOf('@');
    return at < 0 ? null : definer.substring(at + 1);
  }
}
