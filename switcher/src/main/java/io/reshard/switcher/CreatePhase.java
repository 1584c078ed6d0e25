package io.reshard.switcher;

import io.reshard.core.position.GtidPosition;
import io.reshard.core.schema.TableSchemaReader;
import io.reshard.router.KeyRange;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Phase 1 of a workflow: checks what DESIGN 6 refuses (every problem at once, nothing written),
 * creates the target tables from the source's own definitions (same columns, keys and generated
 * columns; triggers are not part of a table definition and are not copied), closes the targets'
 * fence rows, makes sure capture covers each source and reads P0, stores the workflow's first
 * record with P0 and only then starts the forward streams from it. The rules a new workflow's
 * request must pass before a spec exists (names, servers, other workflows) are {@link
 * WorkflowSpecValidator}'s.
 */
final class CreatePhase implements Phase {
  private final WorkflowSpec spec;
  private final Streams streams;
  private final WorkflowEngine engine;

  CreatePhase(WorkflowSpec spec, Streams streams, WorkflowEngine engine) {
    this.spec = spec;
    this.streams = streams;
    this.engine = engine;
  }

  @Override
  public String name() {
    return "create";
  }

  /**
   * Runs the phase.
   *
   * @return the stored record, in {@code CREATED} with P0 and the servers of every shard
   * @throws SwitchRefusedException naming every problem; nothing was written
   */
  Workflow run() throws Exception {
    Map<String, GtidPosition> p0 = prepare();
    Instant now = Instant.now();
    Workflow w =
        Workflow.create(
                spec.name(),
                spec.keyspace(),
                MapChanges.names(spec.sources()),
                MapChanges.names(spec.targets()),
                p0.values().iterator().next().toString(),
                now)
            .withServers(servers(), now)
            .withForward(1, Positions.strings(p0), now);
    w = engine.update(w);
    Failpoints.reach("state:CREATED");
    streams.startForward(1, p0);
    return w;
  }

  /** Refuses, or creates the target tables and fences and returns P0 per source shard. */
  private Map<String, GtidPosition> prepare() throws Exception {
    List<String> problems = preflight();
    if (!problems.isEmpty()) {
      throw new SwitchRefusedException(
          "workflow "
              + spec.name()
              + " not created: "
              + String.join("; ", problems)
              + ". Nothing was written");
    }
    for (ShardServer t : spec.targets()) {
      createTables(spec.sources().get(0), t);
      ServerFence.closed(t, spec.keyspace());
    }
    Map<String, GtidPosition> p0 = new LinkedHashMap<>();
    for (ShardServer s : spec.sources()) {
      streams.ensureCapture(s, Duration.ofSeconds(60));
      p0.put(
          s.shard(),
          ServerFence.position(
              s)); // read after capture covers the server: all after it is in the stream
    }
    return p0;
  }

  private Map<String, String> servers() {
    Map<String, String> m = new LinkedHashMap<>();
    spec.sources().forEach(s -> m.put(s.shard(), s.endpointRef()));
    spec.targets().forEach(t -> m.put(t.shard(), t.endpointRef()));
    return m;
  }

  private List<String> preflight() throws SQLException {
    List<String> problems = new ArrayList<>(rangeProblems(spec));
    ShardServer source = spec.sources().get(0);
    try (Connection c = ServerFence.connect(source)) {
      for (String table : spec.tables()) {
        problems.addAll(
            TableSchemaReader.refusals(c, spec.keyspace(), table, "source " + source.shard()));
      }
    }
    for (ShardServer t : spec.targets()) {
      try (Connection c = ServerFence.connect(t)) {
        for (String table : spec.tables()) {
          if (exists(c, table)) {
            try (Statement st = c.createStatement();
                ResultSet rs =
                    st.executeQuery(
                        "SELECT 1 FROM `" + spec.keyspace() + "`.`" + table + "` LIMIT 1")) {
              if (rs.next()) {
                problems.add(
                    "target "
                        + t.shard()
                        + " already has rows in "
                        + table
                        + "; a workflow needs empty targets");
              }
            }
          }
        }
      }
    }
    return problems;
  }

  /**
   * The targets' ranges must partition the sources' ranges exactly: no overlap, no gap, nothing
   * outside (DESIGN 6).
   */
  static List<String> rangeProblems(WorkflowSpec spec) {
    List<KeyRange> sources = spec.sources().stream().map(ShardServer::range).toList();
    List<KeyRange> targets = spec.targets().stream().map(ShardServer::range).toList();
    try {
      KeyRange from = KeyRange.mergeAll(sources);
      KeyRange to = KeyRange.mergeAll(targets);
      if (!from.equals(to)) {
        return List.of(
            "the targets "
                + MapChanges.names(spec.targets())
                + " cover "
                + to.name()
                + ", not the sources' range "
                + from.name());
      }
      return List.of();
    } catch (IllegalArgumentException e) {
      return List.of(
          "the ranges of "
              + MapChanges.names(spec.sources())
              + " -> "
              + MapChanges.names(spec.targets())
              + " do not form one contiguous range each: "
              + e.getMessage());
    }
  }

  private void createTables(ShardServer source, ShardServer target) throws SQLException {
    try (Connection s = ServerFence.connect(source);
        Connection t = ServerFence.connect(target);
        Statement ts = t.createStatement()) {
      ts.execute("CREATE DATABASE IF NOT EXISTS `" + spec.keyspace() + "`");
      ts.execute("USE `" + spec.keyspace() + "`");
      for (String table : spec.tables()) {
        if (!exists(t, table)) {
          try (Statement ss = s.createStatement();
              ResultSet rs =
                  ss.executeQuery("SHOW CREATE TABLE `" + spec.keyspace() + "`.`" + table + "`")) {
            rs.next();
            ts.execute(rs.getString(2));
          }
        }
      }
    }
  }

  private boolean exists(Connection c, String table) throws SQLException {
    return TableSchemaReader.exists(c, spec.keyspace(), table);
  }
}
