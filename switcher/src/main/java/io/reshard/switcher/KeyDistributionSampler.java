package io.reshard.switcher;

import io.reshard.core.placement.ShardingKey;
import io.reshard.core.rows.Row;
import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.TableRefusedException;
import io.reshard.core.schema.TableSchema;
import io.reshard.core.schema.TableSchemaReader;
import io.reshard.core.value.ValueCodec;
import io.reshard.router.KeyRange;
import io.reshard.router.KeyspaceId;
import io.reshard.router.UnmappableValueException;
import io.reshard.router.VSchema;
import io.reshard.router.VSchemaTable;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Reads a keyspace's key distribution from its shards' servers for {@link RangePlanner}: for each
 * table the vschema places by a functional primary vindex, on each given shard, the sharding key of
 * every row or of a random sample of them, placed by the same {@link ShardingKey} the copier and
 * the differ place rows with (the column's exact text, {@link ValueCodec#exactSelectExpression}, on
 * a session with the pipeline's settings).
 *
 * <p><b>Sampling.</b> A table with at most {@code sampleRows} rows on a shard ({@code COUNT(*)}) is
 * read whole. A larger one is read with {@code WHERE RAND(seed) < sampleRows / rows}, a Bernoulli
 * sample of about {@code sampleRows} rows that the server draws during one scan (only the sampled
 * keys cross the network), repeatable for one seed and table contents; each row read then stands
 * for {@code rows / read} rows of its table on its shard. Both statements scan the table (or its
 * smallest index) once: on a large table they take as long as that.
 *
 * <p>Rows that cannot be placed (a NULL or unmappable sharding key) or whose ksid lies outside
 * their shard's range or the planned range are counted as skipped, not planned by. Tables the
 * vschema cannot place rows of (a sequence, a lookup primary vindex, a missing table) are named in
 * the result's {@link KeyDistribution.TableSample#note}.
 *
 * <p>Reads only; memory is one entry per distinct ksid read. Not thread-safe: one sample per
 * instance at a time.
 */
public final class KeyDistributionSampler {
  /**
   * Rows read per table per shard by default: a range's share of such a sample is within about 0.1
   * percentage point of the table's true share (one standard error, for a range holding an eighth),
   * for some 10 MB of keys in memory and a few seconds of reading per table and shard.
   */
  public static final int DEFAULT_SAMPLE_ROWS = 100_000;

  /** The seed of {@code RAND(seed)}, so a plan of unchanged data is the same plan. */
  static final int SEED = 18;

  /** Rows fetched per round trip while streaming. */
  private static final int FETCH_ROWS = 1000;

  /** How long an example sharding value may be in a message. */
  private static final int EXAMPLE_CHARS = 40;

  private static final HexFormat HEX = HexFormat.of();

  private final String keyspace;
  private final VSchema vschema;
  private final List<String> tables;
  private final int sampleRows;

  /**
   * @param keyspace the keyspace: the database of that name on each shard's server
   * @param vschema its vschema (the newest shard map's)
   * @param tables the tables to read; empty for every table of the vschema that is not a sequence
   * @param sampleRows rows read per table per shard at most (about), at least 1
   * @throws IllegalArgumentException if {@code sampleRows < 1}, or naming the vschema's tables if
   *     one of {@code tables} is not among them
   */
  public KeyDistributionSampler(
      String keyspace, VSchema vschema, List<String> tables, int sampleRows) {
    this.keyspace = Objects.requireNonNull(keyspace, "keyspace");
    this.vschema = Objects.requireNonNull(vschema, "vschema");
    if (sampleRows < 1) {
      throw new IllegalArgumentException(
          "the sample must read at least 1 row per table per shard; got " + sampleRows);
    }
    this.sampleRows = sampleRows;
    for (String t : tables) {
      if (vschema.table(t).isEmpty()) {
        throw new IllegalArgumentException(
            "table "
                + t
                + " is not in the vschema of keyspace "
                + keyspace
                + "; its tables are "
                + vschema.tables().keySet());
      }
    }
    this.tables =
        tables.isEmpty()
            ? vschema.tables().values().stream()
                .filter(t -> !t.isSequence())
                .map(VSchemaTable::name)
                .sorted()
                .toList()
            : List.copyOf(tables);
  }

  /**
   * Reads the distribution of {@code range} from {@code shards}.
   *
   * @param range the range planned: the keyspace or the union of the shards
   * @param shards the servers of the shards whose rows are read (one per shard, no overlap)
   * @throws SwitchRefusedException if a shard's server lacks the keyspace's database
   * @throws SQLException if a server cannot be read
   */
  public KeyDistribution sample(KeyRange range, List<ShardServer> shards) throws SQLException {
    List<KeyDistribution.Point> points = new ArrayList<>();
    List<KeyDistribution.TableSample> read = new ArrayList<>();
    for (ShardServer s : shards) {
      try (Connection c = VSchemaCheck.connect(s)) {
        if (!TableSchemaReader.databaseExists(c, keyspace)) {
          throw new SwitchRefusedException(
              "the keyspace's database "
                  + keyspace
                  + " does not exist on shard "
                  + s.shard()
                  + " (server "
                  + s.endpointRef()
                  + "); nothing can be planned without its rows");
        }
        for (String table : tables) {
          read.add(table(c, s, table, range, points));
        }
      }
    }
    return KeyDistribution.of(range, points, read);
  }

  /** Reads one table on one shard, adding its points; says how it was read. */
  private KeyDistribution.TableSample table(
      Connection c, ShardServer s, String table, KeyRange range, List<KeyDistribution.Point> points)
      throws SQLException {
    VSchemaTable t = vschema.table(table).orElseThrow();
    if (t.isSequence()) {
      return skippedTable(s, table, "a sequence table, not placed by keyspace id");
    }
    TableSchema schema = TableSchemaReader.read(c, keyspace, table).orElse(null);
    if (schema == null) {
      return skippedTable(s, table, "does not exist on this shard");
    }
    ShardingKey key;
    try {
      key = ShardingKey.of(vschema, schema);
    } catch (TableRefusedException e) {
      return skippedTable(s, table, e.getMessage());
    }
    long rows = count(c, schema);
    if (rows == 0) {
      return new KeyDistribution.TableSample(s.shard(), table, 0, 0, 0, null);
    }
    Counts counts = new Counts();
    long readRows = read(c, schema, key, rows, s.range(), range, counts);
    if (readRows == 0) {
      return new KeyDistribution.TableSample(
          s.shard(), table, rows, 0, 0, "the sample drew none of its rows; sample more rows");
    }
    double each = (double) rows / readRows; // the rows one row read stands for
    counts.perKsid.forEach(
        (ksid, n) ->
            points.add(new KeyDistribution.Point(ksid, n[0] * each, counts.example(ksid))));
    return new KeyDistribution.TableSample(
        s.shard(), table, rows, readRows - counts.skipped, counts.skipped, null);
  }

  private static KeyDistribution.TableSample skippedTable(ShardServer s, String table, String why) {
    return new KeyDistribution.TableSample(s.shard(), table, 0, 0, 0, why);
  }

  private static long count(Connection c, TableSchema schema) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + schema.quotedName())) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * Streams the sharding keys of the whole table, or of a sample of about {@code sampleRows}, into
   * {@code counts}; returns the rows read.
   */
  private long read(
      Connection c,
      TableSchema schema,
      ShardingKey key,
      long rows,
      KeyRange shardRange,
      KeyRange range,
      Counts counts)
      throws SQLException {
    int keyIndex = schema.copyIndexOf(key.column());
    ColumnDef column = schema.copyColumns().get(keyIndex);
    String sql =
        "SELECT " + ValueCodec.exactSelectExpression(column) + " FROM " + schema.quotedName();
    if (rows > sampleRows) {
      double fraction = (double) sampleRows / rows;
      sql += String.format(Locale.ROOT, " WHERE RAND(%d) < %.12f", SEED, fraction);
    }
    long readRows = 0;
    try (Statement st =
        c.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY)) {
      st.setFetchSize(FETCH_ROWS);
      try (ResultSet rs = st.executeQuery(sql)) {
        byte[][] values = new byte[schema.copyColumns().size()][];
        while (rs.next()) {
          readRows++;
          values[keyIndex] = rs.getBytes(1);
          KeyspaceId ksid;
          try {
            ksid = key.keyspaceId(new Row(values));
          } catch (UnmappableValueException e) {
            counts.skipped++;
            continue;
          }
          if (!shardRange.contains(ksid) || !range.contains(ksid)) {
            counts.skipped++;
            continue;
          }
          counts.add(ksid, values[keyIndex], schema.table(), column);
        }
      }
    }
    return readRows;
  }

  /** The rows read per ksid of one table on one shard, and an example key of the repeated ones. */
  private static final class Counts {
    final Map<KeyspaceId, long[]> perKsid = new HashMap<>();
    final Map<KeyspaceId, String> examples = new HashMap<>();
    long skipped;

    void add(KeyspaceId ksid, byte[] value, String table, ColumnDef column) {
      long[] n = perKsid.computeIfAbsent(ksid, k -> new long[1]);
      n[0]++;
      if (n[0] == 2) { // only a repeated ksid can be hot: keep the example for those alone
        examples.put(ksid, table + "." + column.name() + "=" + text(column, value));
      }
    }

    String example(KeyspaceId ksid) {
      return examples.get(ksid);
    }
  }

  /** A sharding value as a message shows it: its text, an ENUM's label, bytes in hex. */
  static String text(ColumnDef column, byte[] value) {
    String text =
        switch (column.kind()) {
          case BYTES, BIT -> "0x" + HEX.formatHex(value);
          case ENUM -> enumLabel(column, new String(value, StandardCharsets.US_ASCII));
          default -> new String(value, StandardCharsets.UTF_8);
        };
    return text.length() > EXAMPLE_CHARS ? text.substring(0, EXAMPLE_CHARS) + "..." : text;
  }

  private static String enumLabel(ColumnDef column, String index) {
    int i = Integer.parseInt(index);
    return i >= 1 && i <= column.labels().size() ? column.labels().get(i - 1) : index;
  }
}
