package io.reshard.cdc.apply;

import io.reshard.cdc.ChangeRecord;
import io.reshard.core.error.ErrorClassifier;
import io.reshard.router.UnmappableValueException;
import java.sql.SQLException;
import java.util.HexFormat;

/**
 * The texts an applier stores when it stops its stream, one per kind of stop. Each names the
 * stream, the record's offset and GTID, the table and key where there is one, and what the operator
 * does next; {@code workflow status} and {@code /health} show them as they are. Stateless.
 */
final class StopMessages {
  private StopMessages() {}

  /** A DDL or truncate on a moved table after the copy's start position. */
  static String statement(String stream, ChangeRecord rec, String target) {
    return "stream "
        + stream
        + " stopped at offset "
        + rec.offset()
        + ", GTID "
        + rec.gtid()
        + ": a statement changed moved table "
        + rec.database()
        + "."
        + rec.table()
        + " during the workflow: "
        + rec.ddl()
        + ". Nothing after it was applied. Apply the same statement to target "
        + target
        + " (or decide to skip it), then resume the stream: it passes over this statement (every"
        + " record of its GTID)";
  }

  /** A change whose new row no vindex can place. */
  static String unmappable(String stream, ChangeRecord rec, UnmappableValueException e) {
    return "stream "
        + stream
        + " stopped at offset "
        + rec.offset()
        + ", GTID "
        + rec.gtid()
        + ": a change (op "
        + rec.op()
        + ") gives row "
        + keyText(rec)
        + " of "
        + rec.database()
        + "."
        + rec.table()
        + " a sharding key no shard can hold: "
        + e.getMessage()
        + ". Nothing after it was applied. Fix the row on the source (give it a key the vindex"
        + " maps, or delete it); the change that fixes it carries the whole row. Then resume the"
        + " stream: it passes over this change";
  }

  /**
   * A record the applier cannot turn into statements (it cannot be read, or a value in it does not
   * fit the target's column): trying it again gives the same answer, so the stream stops once.
   *
   * @param rec the record, or null if it could not even be read
   */
  static String dataError(String stream, long offset, ChangeRecord rec, RuntimeException e) {
    String what =
        rec == null
            ? "a record that cannot be read"
            : "a change (op "
                + rec.op()
                + ") of "
                + rec.database()
                + "."
                + rec.table()
                + " key "
                + keyText(rec);
    return "stream "
        + stream
        + " stopped at offset "
        + offset
        + (rec == null ? "" : ", GTID " + rec.gtid())
        + " on a data error: "
        + what
        + " cannot be applied: "
        + e
        + ". Nothing after it was applied, and trying it again gives the same answer. If the"
        + " record is wrong, cancel the workflow and create it again once the cause is fixed; to"
        + " go on without it, resume the stream: it passes over this record, and the diff then"
        + " shows the row for `workflow diff --repair`";
  }

  /**
   * {@code e} with the record that caused it named: table, op, key, topic, offset and GTID. A lost
   * connection is returned as it is: its class and state are what tell the applier to end and be
   * started again on a new connection (a plain {@code SQLException} around it would read as a data
   * error and stop the stream for good).
   */
  static SQLException naming(SQLException e, String stream, ChangeRecord rec) {
    if (ErrorClassifier.isConnectionLoss(e)) {
      return e;
    }
    return new SQLException(
        e.getMessage()
            + " (applying op "
            + rec.op()
            + " of "
            + rec.database()
            + "."
            + rec.table()
            + " key "
            + keyText(rec)
            + ", "
            + stream
            + " offset "
            + rec.offset()
            + ", GTID "
            + rec.gtid()
            + ")",
        e.getSQLState(),
        e.getErrorCode(),
        e);
  }

  /** The record's primary key as {@code {id=7, ...}}, or {@code none}. */
  static String keyText(ChangeRecord rec) {
    if (rec.key() == null) {
      return "none";
    }
    StringBuilder key = new StringBuilder();
    rec.key()
        .forEach(
            (k, v) ->
                key.append(key.isEmpty() ? "" : ", ")
                    .append(k)
                    .append('=')
                    .append(v instanceof byte[] b ? "0x" + HexFormat.of().formatHex(b) : v));
    return "{" + key + "}";
  }
}
