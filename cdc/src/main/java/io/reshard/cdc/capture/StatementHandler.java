package io.reshard.cdc.capture;

import com.github.shyiko.mysql.binlog.event.EventHeaderV4;
import com.github.shyiko.mysql.binlog.event.QueryEventData;
import io.reshard.cdc.CaptureConfig;
import io.reshard.cdc.capture.Statement.TableRef;
import io.reshard.core.schema.TableSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Handles QUERY events for the {@link CaptureLoop}: ends transactions on COMMIT and ROLLBACK, stops
 * capture on XA and on DML logged as a statement on a captured database, publishes TRUNCATE (and
 * partition truncates and drops) as {@code op = t} records and every DDL on a captured database as
 * a schema-change record, and makes the schema cache forget tables a DDL changed. Runs on the
 * engine thread; not thread-safe.
 */
final class StatementHandler {
  private final Set<String> databases;
  private final RecordEncoder encoder;
  private final SchemaCache schemas;
  private final CaptureLoop loop;

  StatementHandler(
      CaptureConfig config, RecordEncoder encoder, SchemaCache schemas, CaptureLoop loop) {
    this.databases = config.capturedDatabases();
    this.encoder = encoder;
    this.schemas = schemas;
    this.loop = loop;
  }

  void onQuery(QueryEventData q, EventHeaderV4 h, CaptureLoop.Txn txn) {
    Statement s = StatementClassifier.classify(q.getSql(), q.getDatabase());
    switch (s.type()) {
      case BEGIN, OTHER -> {
        // nothing to publish
      }
      case COMMIT, ROLLBACK -> {
        loop.endTransaction();
        return;
      }
      case XA ->
          throw loop.unsupported("an XA transaction cannot be captured (" + q.getSql() + ")");
      case DML -> checkDml(s, q);
      case TRUNCATE, TRUNCATE_PARTITION, DROP_PARTITION, DDL -> onDdl(s, q, h);
    }
    if (txn != null && txn.standalone) {
      loop.endTransaction();
    }
  }

  private void checkDml(Statement s, QueryEventData q) {
    boolean captured =
        s.tables().isEmpty()
            ? databases.contains(q.getDatabase())
            : s.tables().stream().anyMatch(t -> databases.contains(t.database()));
    if (captured) {
      String table =
          s.tables().isEmpty()
              ? q.getDatabase() + ".?"
              : s.tables().get(0).database() + "." + s.tables().get(0).table();
      throw loop.unsupported(
          "DML on "
              + table
              + " was logged as a statement, not as rows (a session used binlog_format ="
              + " STATEMENT or MIXED); capture needs ROW for every session: "
              + abbreviate(q.getSql()));
    }
  }

  private void onDdl(Statement s, QueryEventData q, EventHeaderV4 h) {
    List<TableRef> refs = new ArrayList<>();
    for (TableRef t : s.tables()) {
      if (t.database() != null && databases.contains(t.database())) {
        refs.add(t);
      }
    }
    if (refs.isEmpty()) {
      return;
    }
    TableRef first = refs.get(0);
    SourceInfo source = loop.source(h, first.database(), first.table());
    String sql = q.getSql();
    switch (s.type()) {
      case TRUNCATE -> loop.publish(encoder.truncate(source, sql, List.of()));
      case TRUNCATE_PARTITION -> loop.publish(encoder.truncate(source, sql, s.partitions()));
      case DROP_PARTITION -> {
        loop.publish(encoder.truncate(source, sql, s.partitions()));
        loop.publish(schemaChange(source, sql, s, refs));
      }
      default -> loop.publish(schemaChange(source, sql, s, refs));
    }
  }

  private OutRecord schemaChange(SourceInfo source, String sql, Statement s, List<TableRef> refs) {
    List<RecordEncoder.TableChange> changes = new ArrayList<>();
    for (TableRef t : refs) {
      if (t.table() == null) {
        continue;
      }
      schemas.invalidate(t.database(), t.table());
      TableSchema now;
      try {
        now = schemas.current(t.database(), t.table()).orElse(null);
      } catch (SchemaCache.UndecodableTableException e) {
        throw loop.unsupported(e.getMessage());
      }
      String type = s.ddlType() == null ? "ALTER" : s.ddlType();
      changes.add(new RecordEncoder.TableChange(type, t.database(), t.table(), now));
    }
    return encoder.schemaChange(source, sql, changes);
  }

  private static String abbreviate(String sql) {
    return sql.length() <= 200 ? sql : sql.substring(0, 200) + "...";
  }
}
