package io.reshard.router;

import java.util.Objects;

/**
 * A table's {@code "auto_increment"} in a vschema (Vitess's format): the column router-lib fills on
 * insert, and the sequence whose blocks the values come from.
 *
 * <pre>{@code
 * "messages": {"column_vindexes": [...],
 *              "auto_increment": {"column": "id", "sequence": "chat_seq.messages_seq"}}
 * }</pre>
 *
 * <p>The sequence is always named {@code keyspace.table}: a table of type {@code sequence} in an
 * unsharded keyspace ({@link Sequence}). Immutable and thread-safe.
 *
 * @param column the column to fill when an insert leaves it out or passes NULL
 * @param sequence the sequence table, {@code keyspace.table}
 */
public record AutoIncrement(String column, String sequence) {

  /** Checks the shape {@code keyspace.table} (the parser has already reported anything else). */
  public AutoIncrement {
    Objects.requireNonNull(column, "column");
    Objects.requireNonNull(sequence, "sequence");
    if (problem(sequence) != null) {
      throw new IllegalArgumentException(problem(sequence));
    }
  }

  /** The unsharded keyspace that holds the sequence table. */
  public String sequenceKeyspace() {
    return sequence.substring(0, sequence.indexOf('.'));
  }

  /** The sequence table's name inside {@link #sequenceKeyspace()}. */
  public String sequenceTable() {
    return sequence.substring(sequence.indexOf('.') + 1);
  }

  /** What is wrong with a sequence name, or null if it is {@code keyspace.table}. */
  static String problem(String sequence) {
    int dot = sequence.indexOf('.');
    if (dot <= 0 || dot == sequence.length() - 1 || sequence.indexOf('.', dot + 1) >= 0) {
      return "sequence \""
          + sequence
          + "\" must be named keyspace.table (the unsharded keyspace that holds the sequence"
          + " table, then the table), e.g. \"chat_seq.messages_seq\"";
    }
    return null;
  }
}
