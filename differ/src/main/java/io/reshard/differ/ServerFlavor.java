package io.reshard.differ;

import io.reshard.core.position.GtidPosition;
import io.reshard.core.position.ServerPositions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * How a server opens a consistent snapshot and tells the exact binlog position it reflects.
 *
 * <p>Each method leaves the connection inside a read-only {@code REPEATABLE READ} transaction whose
 * reads see the database exactly at the returned position; the caller commits it when done.
 */
public enum ServerFlavor {
  /** The source's own way, asked of the server ({@code @@version}): the default. */
  AUTO {
    @Override
    public String openSnapshot(Connection c) throws SQLException {
      return (ServerPositions.flavorOf(c) == GtidPosition.Flavor.MYSQL ? MYSQL8 : MARIADB)
          .openSnapshot(c);
    }
  },

  /**
   * MariaDB: {@code START TRANSACTION WITH CONSISTENT SNAPSHOT}, then the status values {@code
   * Binlog_snapshot_file} and {@code Binlog_snapshot_position}, which MariaDB sets atomically with
   * the snapshot, and {@code BINLOG_GTID_POS(file, position)}, the GTID position there. No lock is
   * taken. Tested.
   */
  MARIADB {
    @Override
    public String openSnapshot(Connection c) throws SQLException {
      begin(c);
      String file = null;
      long position = -1;
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SHOW STATUS LIKE 'Binlog_snapshot_%'")) {
        while (rs.next()) {
          switch (rs.getString(1)) {
            case "Binlog_snapshot_file" -> file = rs.getString(2);
            case "Binlog_snapshot_position" -> position = rs.getLong(2);
            default -> {}
          }
        }
      }
      if (file == null || file.isEmpty() || position < 0) {
        throw new SQLException(
            "the server reports no Binlog_snapshot_file/position: is the binlog enabled?");
      }
      try (var ps = c.prepareStatement("SELECT BINLOG_GTID_POS(?, ?)")) {
        ps.setString(1, file);
        ps.setLong(2, position);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          String gtid = rs.getString(1);
          if (gtid == null) {
            throw new SQLException(
                "BINLOG_GTID_POS(" + file + ", " + position + ") is NULL: the position is unknown");
          }
          return gtid;
        }
      }
    }
  },

  /**
   * MySQL 8: {@code FLUSH TABLES WITH READ LOCK}, {@code START TRANSACTION WITH CONSISTENT
   * SNAPSHOT}, {@code @@GLOBAL.gtid_executed}, {@code UNLOCK TABLES} (what {@code mysqldump
   * --single-transaction --source-data} does): writes wait during the few statements in between.
   * Needs the {@code RELOAD} privilege. Tested on MySQL 8.0.31.
   */
  MYSQL8 {
    @Override
    public String openSnapshot(Connection c) throws SQLException {
      try (Statement s = c.createStatement()) {
        s.execute("FLUSH TABLES WITH READ LOCK");
        try {
          begin(c);
          try (ResultSet rs = s.executeQuery("SELECT @@GLOBAL.gtid_executed")) {
            rs.next();
            return rs.getString(1);
          }
        } finally {
          s.execute("UNLOCK TABLES");
        }
      }
    }
  };

  /**
   * Opens the snapshot on {@code c} and returns its position: a MariaDB GTID position such as
   * {@code 4-4-1200}, or a MySQL GTID set.
   *
   * @throws SQLException if the server cannot give a consistent snapshot with its position
   */
  public abstract String openSnapshot(Connection c) throws SQLException;

  /** Opens a read-only consistent-snapshot transaction on any server (the target side). */
  public static void begin(Connection c) throws SQLException {
    c.setAutoCommit(false);
    try (Statement s = c.createStatement()) {
      s.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ");
      s.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY");
    }
  }
}
