package io.reshard.cdc.capture;

import java.util.List;

/**
 * What a QUERY event's statement does, as far as capture cares ({@link StatementClassifier}).
 *
 * @param type the class of statement
 * @param tables the tables it names, qualified with the default database when unqualified; the
 *     database itself for database-level DDL (table null)
 * @param ddlType for DDL: Debezium's change type CREATE, ALTER or DROP; else null
 * @param partitions for partition truncates and drops: the partitions named; else empty
 */
record Statement(Type type, List<TableRef> tables, String ddlType, List<String> partitions) {

  /** The classes of statement. */
  enum Type {
    /** BEGIN or START TRANSACTION. */
    BEGIN,
    /** COMMIT: ends the transaction. */
    COMMIT,
    /** ROLLBACK (logged when non-transactional tables changed): ends the transaction. */
    ROLLBACK,
    /** Any XA statement. */
    XA,
    /** INSERT, REPLACE, UPDATE, DELETE, LOAD DATA logged as a statement. */
    DML,
    /** TRUNCATE TABLE. */
    TRUNCATE,
    /** ALTER TABLE ... TRUNCATE PARTITION. */
    TRUNCATE_PARTITION,
    /** ALTER TABLE ... DROP PARTITION: rows go and the definition changes. */
    DROP_PARTITION,
    /** Other DDL on tables or databases. */
    DDL,
    /** Anything else (SET, SAVEPOINT, GRANT, FLUSH, ...): nothing to publish. */
    OTHER
  }

  /**
   * A table or database a statement names.
   *
   * @param database the database (the session's default when unqualified; may be null)
   * @param table the table, or null for a database
   */
  record TableRef(String database, String table) {}

  static Statement of(Type type) {
    return new Statement(type, List.of(), null, List.of());
  }
}
