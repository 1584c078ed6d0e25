package io.reshard.switcher;

import io.reshard.core.position.GtidPosition;
import io.reshard.core.position.ServerPositions;
import io.reshard.core.schema.TableSchemaReader;
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
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Phase 1 of a workflow: checks what DESIGN 6 refuses (every problem at once, nothing written: the
 * keyspace name, the ranges, the vschema against the source's tables and rows ({@link
 * VSchemaCheck}), the moved tables themselves, and empty targets), creates the target tables from
 * the source's own definitions (same columns, keys and generated columns; triggers are not part of
 * a table definition and are not copied) and the views and routines that use only moved tables
 * ({@link CarriedObjects}), closes the targets' fence rows, makes sure capture covers each source
 * and reads P0, stores the workflow's first record with P0 and only then starts the forward streams
 * from it. The record keeps the trigger choice, with {@code follow-writes} every moved table's
 * trigger definition, and what was not carried (the warning {@code status} shows). The rules a new
 * workflow's request must pass before a spec exists (names, servers, other workflows) are {@link
 * WorkflowSpecValidator}'s.
 */
final class CreatePhase implements Phase {
  private final WorkflowSpec spec;
  private final Streams streams;
  private final WorkflowEngine engine;
  private final CarriedObjects objects;

  CreatePhase(WorkflowSpec spec, Streams streams, WorkflowEngine engine) {
    this.spec = spec;
    this.streams = streams;
    this.engine = engine;
    this.objects = new CarriedObjects(spec);
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
                // one source: its position; several: each source's, as the journal holds G
                p0.size() == 1 ? p0.values().iterator().next().toString() : p0.toString(),
                now)
            .withServers(servers(), now)
            .withForward(1, Positions.strings(p0), now)
            .withSchemaObjects(objects.record(), now);
    w = engine.update(w);
    Failpoints.reach("state:CREATED");
    streams.startForward(1, p0);
    return w;
  }

  /** Refuses, or creates the target tables and fences and returns P0 per source shard. */
  private Map<String, GtidPosition> prepare() throws Exception {
    preflight().throwIfAny("workflow " + spec.name() + " not created");
    for (ShardServer t : spec.targets()) {
      createTables(spec.sources().get(0), t);
      try (Connection c = ServerFence.connect(t)) {
        objects.createOn(c); // views, procedures and functions of moved tables; no trigger
      }
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

  /** Every reason to refuse the workflow, from the request and from every server's state. */
  private RefusalReasons preflight() throws SQLException {
    RefusalReasons reasons = new RefusalReasons();
    NameRules.keyspaceProblem(spec.keyspace()).ifPresent(reasons::add);
    reasons.addAll(rangeProblems(spec));
    VSchemaCheck vschema = new VSchemaCheck(spec.keyspace(), spec.vschema(), reasons);
    vschema.document();
    mixedFlavors(flavors()).ifPresent(reasons::add);
    stateKeyTooLong(spec).ifPresent(reasons::add);
    if (spec.sources().size() > 1) {
      List<String> differences = SourceTables.differences(spec);
      reasons.addAll(differences);
      if (differences.isEmpty()) { // keys are compared only between tables defined alike
        SourceKeys.reasons(spec, reasons);
      }
    }
    for (ShardServer source : spec.sources()) {
      String where = "source " + source.shard();
      try (Connection c = VSchemaCheck.connect(source)) {
        vschema.server(c, where, true, io.reshard.router.KeyRange.parse(source.shard()));
        for (String table : spec.tables()) {
          if (exists(c, table)) { // a missing one is the vschema check's reason
            TableSchemaReader.refusals(
                    c, spec.keyspace(), table, where, spec.triggers() == TriggerMode.FOLLOW_WRITES)
                .forEach(p -> reasons.add(p, where));
          }
        }
        SequenceStep.createReasons(c, spec, where, reasons);
        objects.check(c, where, reasons);
      }
    }
    SequenceStep.sequenceReasons(spec, reasons);
    for (ShardServer t : spec.targets()) {
      try (Connection c = ServerFence.connect(t)) {
        objects.checkDefiners(c, "target " + t.shard() + " on " + t.endpointRef(), reasons);
      }
      nonEmptyTargetTables(t)
          .forEach(
              table ->
                  reasons.add(
                      "table " + table + " already has rows; a workflow needs empty targets",
                      "target " + t.shard()));
    }
    return reasons;
  }

  /** Each server of the workflow (sources first) and its flavor, asked of the server. */
  private Map<String, GtidPosition.Flavor> flavors() throws SQLException {
    Map<String, GtidPosition.Flavor> m = new LinkedHashMap<>();
    List<ShardServer> all = new ArrayList<>(spec.sources());
    all.addAll(spec.targets());
    for (ShardServer s : all) {
      try (Connection c = ServerFence.connect(s)) {
        m.put(s.endpointRef(), ServerPositions.flavorOf(c));
      }
    }
    return m;
  }

  /**
   * The refusal of a workflow whose servers are not all of one flavor: positions, snapshots and
   * binlog forms differ between MySQL and MariaDB, and a mixed workflow is not tested.
   */
  static Optional<String> mixedFlavors(Map<String, GtidPosition.Flavor> byServer) {
    if (byServer.values().stream().distinct().count() <= 1) {
      return Optional.empty();
    }
    String servers =
        byServer.entrySet().stream()
            .map(
                e ->
                    e.getKey()
                        + " "
                        + (e.getValue() == GtidPosition.Flavor.MYSQL ? "MySQL" : "MariaDB"))
            .collect(Collectors.joining(", "));
    return Optional.of(
        "the workflow's servers mix MySQL and MariaDB ("
            + servers
            + "); every source and target must be of one flavor: use target servers of the"
            + " sources' flavor");
  }

  /**
   * The refusal of a name too long for the progress keys of a workflow of several sources ({@link
   * WorkflowSpec#stateKey}: {@code NAME/SOURCE}, at most {@link WorkflowSpec#MAX_STATE_KEY}).
   */
  static Optional<String> stateKeyTooLong(WorkflowSpec spec) {
    ShardServer longest = null;
    for (ShardServer s : spec.sources()) {
      if (longest == null || s.shard().length() > longest.shard().length()) {
        longest = s;
      }
    }
    String key = spec.stateKey(longest);
    if (key.length() <= WorkflowSpec.MAX_STATE_KEY) {
      return Optional.empty();
    }
    return Optional.of(
        "the workflow name "
            + spec.name()
            + " is too long for a workflow of "
            + spec.sources().size()
            + " sources: its copy and diff keep their progress as "
            + key
            + " ("
            + key.length()
            + " characters, at most "
            + WorkflowSpec.MAX_STATE_KEY
            + "); choose a name of at most "
            + (WorkflowSpec.MAX_STATE_KEY - 1 - longest.shard().length())
            + " characters");
  }

  /** The moved tables that exist on target {@code t} and hold a row. */
  private List<String> nonEmptyTargetTables(ShardServer t) throws SQLException {
    List<String> nonEmpty = new ArrayList<>();
    try (Connection c = ServerFence.connect(t)) {
      for (String table : spec.tables()) {
        if (exists(c, table)) {
          try (Statement st = c.createStatement();
              ResultSet rs =
                  st.executeQuery(
                      "SELECT 1 FROM `" + spec.keyspace() + "`.`" + table + "` LIMIT 1")) {
            if (rs.next()) {
              nonEmpty.add(table);
            }
          }
        }
      }
    }
    return nonEmpty;
  }

  /**
   * The targets' ranges must partition the sources' ranges exactly: no overlap, no gap, nothing
   * outside, none equal to a source's range ({@link TargetRanges}, DESIGN 6).
   */
  static List<String> rangeProblems(WorkflowSpec spec) {
    return TargetRanges.problems(
        spec.sources().stream().map(ShardServer::range).toList(),
        spec.targets().stream().map(ShardServer::range).toList());
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
