package io.reshard.cdc.capture;

import io.reshard.cdc.CaptureConfig;
import io.reshard.core.schema.TableSchemaReader;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The checks capture runs before it starts anything: the source must write a row-based binlog with
 * full row images and full row metadata, uncompressed; capture's server id must not be the source's
 * own; the user must hold REPLICATION SLAVE and SELECT; the database must exist. {@link #read}
 * takes the facts from the server; {@link #problems} judges them (pure, so every refusal is unit
 * tested). What a session can change per connection (binlog format, row image) is checked again per
 * event by the capture loop.
 */
final class Preflight {

  private static final Pattern GRANT = Pattern.compile("^GRANT (.+?) ON (\\S+) TO .*$");

  private Preflight() {}

  /**
   * What the checks need to know about the source.
   *
   * @param logBin {@code @@log_bin}
   * @param binlogFormat {@code @@binlog_format}
   * @param rowImage {@code @@binlog_row_image}
   * @param rowMetadata {@code @@binlog_row_metadata} (null on servers without it)
   * @param logBinCompress {@code @@log_bin_compress} (false where absent)
   * @param serverId {@code @@server_id}
   * @param version {@code @@version}
   * @param grants the lines of {@code SHOW GRANTS}
   * @param databaseExists whether the captured database exists
   * @param transactionCompression MySQL's {@code @@binlog_transaction_compression} (false where
   *     absent)
   * @param partialJson whether MySQL's {@code @@binlog_row_value_options} holds {@code
   *     PARTIAL_JSON}
   */
  record ServerSettings(
      boolean logBin,
      String binlogFormat,
      String rowImage,
      String rowMetadata,
      boolean logBinCompress,
      long serverId,
      String version,
      List<String> grants,
      boolean databaseExists,
      boolean transactionCompression,
      boolean partialJson) {

    /** Settings of a server that writes neither compressed payloads nor partial JSON. */
    ServerSettings(
        boolean logBin,
        String binlogFormat,
        String rowImage,
        String rowMetadata,
        boolean logBinCompress,
        long serverId,
        String version,
        List<String> grants,
        boolean databaseExists) {
      this(
          logBin,
          binlogFormat,
          rowImage,
          rowMetadata,
          logBinCompress,
          serverId,
          version,
          grants,
          databaseExists,
          false,
          false);
    }

    boolean mariaDb() {
      return version.contains("MariaDB");
    }
  }

  /** Reads the settings over {@code c}. */
  static ServerSettings read(Connection c, String database) throws SQLException {
    try (Statement st = c.createStatement()) {
      boolean logBin;
      String format;
      String image;
      long serverId;
      String version;
      try (ResultSet rs =
          st.executeQuery(
              "SELECT @@log_bin, @@binlog_format, @@binlog_row_image, @@server_id, @@version")) {
        rs.next();
        logBin = rs.getInt(1) == 1;
        format = rs.getString(2);
        image = rs.getString(3);
        serverId = rs.getLong(4);
        version = rs.getString(5);
      }
      String metadata = optionalVariable(st, "@@binlog_row_metadata");
      String compress = optionalVariable(st, "@@log_bin_compress");
      String payload = optionalVariable(st, "@@binlog_transaction_compression");
      String valueOptions = optionalVariable(st, "@@binlog_row_value_options");
      List<String> grants = new ArrayList<>();
      try (ResultSet rs = st.executeQuery("SHOW GRANTS")) {
        while (rs.next()) {
          grants.add(rs.getString(1));
        }
      }
      boolean exists = TableSchemaReader.databaseExists(c, database);
      return new ServerSettings(
          logBin,
          format,
          image,
          metadata,
          "1".equals(compress) || "ON".equalsIgnoreCase(compress),
          serverId,
          version,
          grants,
          exists,
          "1".equals(payload) || "ON".equalsIgnoreCase(payload),
          valueOptions != null && valueOptions.toUpperCase(Locale.ROOT).contains("PARTIAL_JSON"));
    }
  }

  private static String optionalVariable(Statement st, String variable) {
    try (ResultSet rs = st.executeQuery("SELECT " + variable)) {
      return rs.next() ? rs.getString(1) : null;
    } catch (SQLException absent) {
      return null;
    }
  }

  /** Every problem with the settings, each a sentence with its fix; empty if capture may start. */
  static List<String> problems(ServerSettings s, CaptureConfig config) {
    List<String> p = new ArrayList<>();
    if (!s.logBin()) {
      p.add("the binlog is off (log_bin = OFF): start the server with log_bin, binlog_format=ROW");
    }
    if (!"ROW".equalsIgnoreCase(s.binlogFormat())) {
      p.add("binlog_format is " + s.binlogFormat() + ", not ROW: SET GLOBAL binlog_format = ROW");
    }
    if (!"FULL".equalsIgnoreCase(s.rowImage())) {
      p.add(
          "binlog_row_image is " + s.rowImage() + ", not FULL: SET GLOBAL binlog_row_image = FULL");
    }
    if (s.mariaDb() && !"FULL".equalsIgnoreCase(s.rowMetadata())) {
      p.add(
          "binlog_row_metadata is "
              + s.rowMetadata()
              + ", not FULL (capture needs column names and types from the binlog):"
              + " SET GLOBAL binlog_row_metadata = FULL");
    }
    if (s.logBinCompress()) {
      p.add("log_bin_compress is ON: capture cannot read compressed events; turn it OFF");
    }
    if (s.partialJson()) {
      p.add(
          "binlog_row_value_options is PARTIAL_JSON: a partial JSON update carries no full after"
              + " image; SET GLOBAL binlog_row_value_options = ''");
    }
    if (s.serverId() == config.serverId()) {
      p.add(
          "source.server.id "
              + config.serverId()
              + " is the source's own server_id: choose an id no server or binlog client of"
              + " this source uses");
    }
    if (!hasGlobal(s.grants(), "REPLICATION SLAVE")) {
      p.add(
          "the user "
              + config.sourceUser()
              + " lacks REPLICATION SLAVE: GRANT REPLICATION SLAVE ON *.* TO it");
    }
    if (!hasGlobal(s.grants(), "SELECT") && !hasOnDatabase(s.grants(), config.database())) {
      p.add(
          "the user "
              + config.sourceUser()
              + " lacks SELECT on "
              + config.database()
              + ": GRANT SELECT ON `"
              + config.database()
              + "`.* TO it");
    }
    if (!s.databaseExists()) {
      p.add("database " + config.database() + " does not exist on the source (or is not visible)");
    }
    return p;
  }

  private static boolean hasGlobal(List<String> grants, String privilege) {
    for (String g : grants) {
      Matcher m = GRANT.matcher(g);
      if (m.matches() && m.group(2).equals("*.*") && grants(m.group(1), privilege)) {
        return true;
      }
    }
    return false;
  }

  private static boolean hasOnDatabase(List<String> grants, String database) {
    for (String g : grants) {
      Matcher m = GRANT.matcher(g);
      if (m.matches() && grants(m.group(1), "SELECT")) {
        String object = m.group(2);
        int dot = object.lastIndexOf('.');
        if (dot > 0
            && object.substring(dot + 1).equals("*")
            && likeMatches(object.substring(0, dot).replace("`", ""), database)) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean grants(String privileges, String wanted) {
    String list = privileges.toUpperCase(Locale.ROOT);
    if (list.startsWith("ALL")) {
      return true;
    }
    for (String p : list.split(",")) {
      if (p.strip().equals(wanted)) {
        return true;
      }
    }
    return false;
  }

  /** MySQL grant patterns: {@code %} and {@code _} are wildcards unless escaped with {@code \}. */
  static boolean likeMatches(String pattern, String name) {
    StringBuilder regex = new StringBuilder();
    for (int i = 0; i < pattern.length(); i++) {
      char ch = pattern.charAt(i);
      if (ch == '\\' && i + 1 < pattern.length()) {
        regex.append(Pattern.quote(String.valueOf(pattern.charAt(++i))));
      } else if (ch == '%') {
        regex.append(".*");
      } else if (ch == '_') {
        regex.append('.');
      } else {
        regex.append(Pattern.quote(String.valueOf(ch)));
      }
    }
    return name.matches(regex.toString());
  }
}
