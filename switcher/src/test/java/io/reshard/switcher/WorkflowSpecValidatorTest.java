package io.reshard.switcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cdc.HandOver;
import io.reshard.router.KeyRange;
import io.reshard.router.ShardAssignment;
import io.reshard.router.ShardMap;
import io.reshard.router.VSchema;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The rules of a new workflow's request, against an in-memory store and shard map. */
class WorkflowSpecValidatorTest {
  private static final Instant T = Instant.parse("2026-11-29T10:00:00Z");
  private static final ShardMap MAP =
      ShardMap.first(
          "chat",
          VSchema.parse("{\"sharded\": true, \"vindexes\": {}, \"tables\": {}}"),
          List.of(
              new ShardAssignment(KeyRange.parse("-80"), "db1", true, true),
              new ShardAssignment(KeyRange.parse("80-"), "db2", true, true)));

  private final Map<String, Workflow> stored = new HashMap<>();
  private final Set<String> known = Set.of("db1", "db2", "db5", "db6", "db7");
  private final AtomicReference<Set<String>> inUseSeen = new AtomicReference<>();
  private Optional<ShardMap> map = Optional.of(MAP);

  private final WorkflowStore store =
      new WorkflowStore() {
        @Override
        public void save(Workflow w) {
          stored.put(w.name(), w);
        }

        @Override
        public Optional<Workflow> load(String name) {
          return Optional.ofNullable(stored.get(name));
        }

        @Override
        public List<Workflow> list() {
          return new ArrayList<>(stored.values());
        }
      };

  private WorkflowSpecValidator validator() {
    return new WorkflowSpecValidator(
        store,
        k -> k.equals("chat") ? map : Optional.empty(),
        known::contains,
        (keyspace, targets, inUse) -> {
          inUseSeen.set(inUse);
          return List.of("db5", "db6", "db7").subList(0, targets.size());
        });
  }

  private static Map<String, String> params(String... kv) {
    Map<String, String> p = new HashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      p.put(kv[i], kv[i + 1]);
    }
    return p;
  }

  private static Map<String, String> split() {
    return params("keyspace", "chat", "source", "80-", "targets", "80-C0, c0-");
  }

  @Test
  void aValidRequestGetsTheDefaultServersAndEveryShardsServer() {
    WorkflowSpecValidator.Request r = validator().validate("split1", split());
    assertEquals(List.of("80-"), r.sources());
    assertEquals(List.of("80-c0", "c0-"), r.targets(), "lower case, stripped");
    assertEquals(List.of("db5", "db6"), r.targetServers());
    assertEquals(Map.of("80-", "db2", "80-c0", "db5", "c0-", "db6"), r.servers());
    assertEquals(List.of("80-", "80-c0", "c0-"), List.copyOf(r.servers().keySet()));
    assertEquals(Set.of("db1", "db2"), inUseSeen.get(), "the map's servers are in use");
  }

  @Test
  void aBadNameOrAMissingParameterIsAMalformedRequest() {
    IllegalArgumentException name =
        assertThrows(IllegalArgumentException.class, () -> validator().validate("-x", split()));
    assertEquals(
        "workflow name \"-x\": use 1 to 64 ASCII letters, digits, '.', '_' and '-', starting with"
            + " a letter or digit",
        name.getMessage());
    assertThrows(IllegalArgumentException.class, () -> validator().validate("", split()));
    IllegalArgumentException missing =
        assertThrows(
            IllegalArgumentException.class,
            () -> validator().validate("w", params("keyspace", "chat", "source", "80-")));
    assertEquals("parameter targets is required", missing.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () ->
            validator()
                .validate("w", params("keyspace", "chat", "source", "80-", "targets", "zz")));
  }

  @Test
  void aTakenNameAMissingMapOrAMissingSourceIsRefused() {
    stored.put("w", Workflow.create("w", "chat", List.of("-80"), List.of("-40", "40-80"), "p", T));
    SwitchRefusedException taken =
        assertThrows(SwitchRefusedException.class, () -> validator().validate("w", split()));
    assertEquals(
        "workflow w not created: a workflow named w exists already; choose another name. Nothing"
            + " was written",
        taken.getMessage());
    map = Optional.empty();
    SwitchRefusedException noMap =
        assertThrows(SwitchRefusedException.class, () -> validator().validate("w2", split()));
    assertEquals(
        "workflow w2 not created: keyspace chat has no shard map; publish one first with"
            + " `reshard keyspace init --keyspace chat --vschema FILE --shards=RANGES`"
            + " (docs/workflow.md). Nothing was written",
        noMap.getMessage());
    map = Optional.of(MAP);
    SwitchRefusedException noShard =
        assertThrows(
            SwitchRefusedException.class,
            () ->
                validator()
                    .validate(
                        "w2", params("keyspace", "chat", "source", "40-", "targets", "40-60,60-")));
    assertEquals(
        "workflow w2 not created: keyspace chat has no shard 40-; its shards are [-80, 80-]."
            + " Nothing was written",
        noShard.getMessage());
  }

  @Test
  void aShardInAnUnfinishedWorkflowIsRefusedAndItsServersAreInUse() {
    Workflow other =
        Workflow.create("other", "chat", List.of("80-"), List.of("80-c0", "c0-"), "p", T)
            .withServers(Map.of("80-", "db2", "80-c0", "db5", "c0-", "db6"), T);
    stored.put("other", other);
    SwitchRefusedException e =
        assertThrows(SwitchRefusedException.class, () -> validator().validate("w", split()));
    assertTrue(
        e.getMessage()
            .contains(
                "\n  1. shard 80- of chat is already in workflow other (CREATED); complete or"
                    + " cancel that one first\n"),
        e.getMessage());
    assertTrue(
        e.getMessage().contains("\n  2. server db5 already holds a shard of chat"),
        "the other workflow's target servers are in use: " + e.getMessage());
    SwitchRefusedException shared =
        assertThrows(
            SwitchRefusedException.class,
            () ->
                validator()
                    .validate(
                        "w",
                        params(
                            "keyspace",
                            "chat",
                            "source",
                            "-80",
                            "targets",
                            "-40,40-80",
                            "target_servers",
                            "db7,db7")));
    assertEquals(
        "workflow w not created: server db7 is named for two targets; each target needs a server"
            + " of its own. Nothing was written",
        shared.getMessage());
  }

  @Test
  void targetServersMustMatchTheTargetsBeFreeAndBeKnown() {
    Map<String, String> p = split();
    p.put("target_servers", "db5");
    assertEquals(
        "--targets names 2 shards but --target-servers 1 server: give one server per target, in"
            + " the same order; nothing was written",
        assertThrows(IllegalArgumentException.class, () -> validator().validate("w", p))
            .getMessage());
    p.put("target_servers", "db1, db5");
    SwitchRefusedException inUse =
        assertThrows(SwitchRefusedException.class, () -> validator().validate("w", p));
    assertTrue(
        inUse
            .getMessage()
            .contains(
                "server db1 already holds a shard of chat (in the shard map or in a workflow)"),
        inUse.getMessage());
    p.put("target_servers", "db5,db9");
    String unknown =
        assertThrows(IllegalArgumentException.class, () -> validator().validate("w", p))
            .getMessage();
    assertTrue(unknown.startsWith("target server db9 is not known to this daemon"), unknown);
    assertTrue(unknown.contains("nothing was written"), unknown);
  }

  @Test
  void noFreeSpareIsOneReasonBesideTheOthers() {
    WorkflowSpecValidator noSpares =
        new WorkflowSpecValidator(
            store,
            k -> k.equals("chat") ? map : Optional.empty(),
            known::contains,
            (keyspace, targets, inUse) -> {
              throw new IllegalArgumentException("no server for target " + targets.get(0));
            });
    SwitchRefusedException e =
        assertThrows(
            SwitchRefusedException.class,
            () ->
                noSpares.validate(
                    "w", params("keyspace", "chat", "source", "80-", "targets", "80-b0,a0-")));
    assertTrue(e.getMessage().contains("overlap"), e.getMessage());
    assertTrue(e.getMessage().contains("no server for target 80-b0"), e.getMessage());
  }

  @Test
  void aTargetEqualToTheSourceIsRefusedForThatReasonNotForAMissingTable() {
    SwitchRefusedException e =
        assertThrows(
            SwitchRefusedException.class,
            () ->
                validator()
                    .validate("w", params("keyspace", "chat", "source", "80-", "targets", "80-")));
    assertEquals(
        "workflow w not created: target 80- is the range of source 80- itself: a shard map cannot"
            + " hold two shards of one range; give targets that divide 80- (e.g."
            + " --targets=80-c0,c0-). Nothing was written",
        e.getMessage());
  }

  @Test
  void everyReasonTheKeyspacesStateGivesComesInOneRefusal() {
    Workflow other =
        Workflow.create("other", "chat", List.of("80-"), List.of("80-c0", "c0-"), "p", T)
            .withServers(Map.of("80-", "db2", "80-c0", "db5", "c0-", "db6"), T);
    stored.put("w", Workflow.create("w", "chat", List.of("-80"), List.of("-40", "40-80"), "p", T));
    stored.put("other", other);
    SwitchRefusedException e =
        assertThrows(
            SwitchRefusedException.class,
            () ->
                validator()
                    .validate(
                        "w",
                        params(
                            "keyspace",
                            "chat",
                            "source",
                            "80-",
                            "targets",
                            "40-c0,c0-",
                            "target_servers",
                            "db1,db1")));
    String m = e.getMessage();
    assertTrue(m.startsWith("workflow w not created, for 5 reasons (nothing was written):\n"), m);
    assertTrue(m.contains("\n  1. a workflow named w exists already"), m);
    assertTrue(m.contains("\n  2. target 40-c0 is not inside the source's range 80-"), m);
    assertTrue(m.contains("\n  3. shard 80- of chat is already in workflow other (CREATED)"), m);
    assertTrue(m.contains("\n  4. server db1 already holds a shard of chat"), m);
    assertTrue(m.contains("\n  5. server db1 is named for two targets"), m);
  }

  @Test
  void aKeyspaceNameOutsideTheRuleIsRefused() {
    SwitchRefusedException e =
        assertThrows(
            SwitchRefusedException.class,
            () ->
                validator()
                    .validate(
                        "w", params("keyspace", "café", "source", "80-", "targets", "80-c0,c0-")));
    assertTrue(e.getMessage().contains("keyspace name \"café\" has 'é'"), e.getMessage());
  }

  // ---- several sources ----

  @Test
  void aMergeOfAdjacentShardsGetsEveryShardsServerSourcesFirst() {
    WorkflowSpecValidator.Request r =
        validator()
            .validate("m1", params("keyspace", "chat", "source", "-80, 80-", "targets", "-"));
    assertEquals(List.of("-80", "80-"), r.sources());
    assertEquals(List.of("-"), r.targets());
    assertEquals(List.of("db5"), r.targetServers());
    assertEquals(List.of("-80", "80-", "-"), List.copyOf(r.servers().keySet()));
    assertEquals(Map.of("-80", "db1", "80-", "db2", "-", "db5"), r.servers());
  }

  @Test
  void aRepartitionOfTwoShardsOntoThreeUnevenRangesIsAccepted() {
    WorkflowSpecValidator.Request r =
        validator()
            .validate(
                "r1", params("keyspace", "chat", "source", "-80,80-", "targets", "-55,55-aa,aa-"));
    assertEquals(List.of("-55", "55-aa", "aa-"), r.targets());
    assertEquals(List.of("db5", "db6", "db7"), r.targetServers());
  }

  @Test
  void sourcesThatAreNotAllShardsOrNamedTwiceAreRefusedWithEveryReason() {
    SwitchRefusedException e =
        assertThrows(
            SwitchRefusedException.class,
            () ->
                validator()
                    .validate(
                        "m2", params("keyspace", "chat", "source", "-40,40-80", "targets", "-80")));
    assertTrue(
        e.getMessage().contains("has no shard -40; its shards are [-80, 80-]"), e.getMessage());
    assertTrue(e.getMessage().contains("has no shard 40-80"), e.getMessage());
    SwitchRefusedException twice =
        assertThrows(
            SwitchRefusedException.class,
            () ->
                validator()
                    .validate(
                        "m3",
                        params("keyspace", "chat", "source", "80-,80-", "targets", "80-c0,c0-")));
    assertTrue(twice.getMessage().contains("--source names a shard twice"), twice.getMessage());
  }

  @Test
  void sourcesWithAGapOrTargetsThatMissPartOfTheirUnionAreRefused() {
    ShardMap three =
        ShardMap.first(
            "chat",
            MAP.vschema(),
            List.of(
                new ShardAssignment(KeyRange.parse("-40"), "db1", true, true),
                new ShardAssignment(KeyRange.parse("40-80"), "db2", true, true),
                new ShardAssignment(KeyRange.parse("80-"), "db7", true, true)));
    map = Optional.of(three);
    SwitchRefusedException gap =
        assertThrows(
            SwitchRefusedException.class,
            () ->
                validator()
                    .validate(
                        "m4", params("keyspace", "chat", "source", "-40,80-", "targets", "-")));
    assertTrue(gap.getMessage().contains("do not form one contiguous range"), gap.getMessage());
    assertTrue(gap.getMessage().contains("a workflow moves adjacent shards"), gap.getMessage());
    SwitchRefusedException part =
        assertThrows(
            SwitchRefusedException.class,
            () ->
                validator()
                    .validate(
                        "m5", params("keyspace", "chat", "source", "-40,40-80", "targets", "-60")));
    assertTrue(
        part.getMessage().contains("the targets [-60] cover -60, not -80"), part.getMessage());
    assertTrue(stored.isEmpty(), "nothing was written");
  }

  @Test
  void aSourceInAnUnfinishedWorkflowRefusesTheMerge() {
    stored.put("w", Workflow.create("w", "chat", List.of("80-"), List.of("80-c0", "c0-"), "p", T));
    SwitchRefusedException e =
        assertThrows(
            SwitchRefusedException.class,
            () ->
                validator()
                    .validate(
                        "m6", params("keyspace", "chat", "source", "-80,80-", "targets", "-")));
    assertTrue(
        e.getMessage().contains("shard 80- of chat is already in workflow w"), e.getMessage());
  }

  @Test
  void aTargetNamedLikeAShardCapturedOnAnotherServerIsRefused() {
    Workflow split =
        Workflow.create("split1", "chat", List.of("80-"), List.of("80-c0", "c0-"), "p", T)
            .withServers(Map.of("80-", "db2", "80-c0", "db5", "c0-", "db6"), T)
            .withHandOver(HandOver.given(T, Map.of("80-", "0-2-100")))
            .withHandOverTaken(Map.of("80-c0", "0-5-9", "c0-", "0-6-9"));
    stored.put("split1", split);
    map =
        Optional.of(
            ShardMap.first(
                "chat",
                MAP.vschema(),
                List.of(
                    new ShardAssignment(KeyRange.parse("-80"), "db1", true, true),
                    new ShardAssignment(KeyRange.parse("80-c0"), "db5", true, true),
                    new ShardAssignment(KeyRange.parse("c0-"), "db6", true, true))));
    Map<String, String> back =
        params(
            "keyspace", "chat", "source", "80-c0,c0-", "targets", "80-", "target_servers", "db7");
    SwitchRefusedException e =
        assertThrows(SwitchRefusedException.class, () -> validator().validate("back", back));
    assertTrue(
        e.getMessage()
            .contains(
                "target 80- has the name of an earlier shard of chat, captured on db2 (workflow"
                    + " split1): its change topic and stored capture position hold that server's"
                    + " changes and binlog position, which a new 80- on db7 would take for its"
                    + " own"),
        e.getMessage());
    assertEquals(
        List.of(),
        WorkflowSpecValidator.reusedNames(store.list(), "chat", List.of("80-"), List.of("db2")),
        "on the server it was captured on, the name is that server's still");
    assertEquals(
        List.of(),
        WorkflowSpecValidator.reusedNames(store.list(), "other", List.of("80-"), List.of("db7")),
        "another keyspace's shard names are its own");
  }

  @Test
  void aTargetOfAWorkflowCancelledBeforeAnySwitchWasNeverCapturedAndMayMove() {
    Workflow cancelled =
        Workflow.create("w", "chat", List.of("80-"), List.of("80-c0", "c0-"), "p", T)
            .withServers(Map.of("80-", "db2", "80-c0", "db5", "c0-", "db6"), T)
            .transition(WorkflowState.CANCELLED, T);
    stored.put("w", cancelled);
    Map<String, String> p = split();
    p.put("target_servers", "db7,db6");
    WorkflowSpecValidator.Request r = validator().validate("again", p);
    assertEquals(List.of("db7", "db6"), r.targetServers());
    assertEquals(
        List.of(),
        WorkflowSpecValidator.reusedNames(
            List.of(cancelled.withHandOver(HandOver.given(T, Map.of("80-", "0-2-1")))),
            "chat",
            List.of("80-"),
            List.of("db2")),
        "a source keeps its server");
    assertEquals(
        1,
        WorkflowSpecValidator.reusedNames(
                List.of(cancelled.withHandOver(HandOver.given(T, Map.of("80-", "0-2-1")))),
                "chat",
                List.of("80-c0"),
                List.of("db7"))
            .size(),
        "a target of a workflow that handed writes over was captured");
  }

  @Test
  void aMissingSourceIsNamedBesideTheShardsAndOneBeingRetiredSaysSo() {
    ShardMap withRetired =
        ShardMap.first(
            "chat",
            MAP.vschema(),
            List.of(
                new ShardAssignment(KeyRange.parse("-"), "db1", false, false),
                new ShardAssignment(KeyRange.parse("-80"), "db5", true, true),
                new ShardAssignment(KeyRange.parse("80-"), "db6", true, true)));
    map = Optional.of(withRetired);
    SwitchRefusedException e =
        assertThrows(
            SwitchRefusedException.class,
            () ->
                validator()
                    .validate("w", params("keyspace", "chat", "source", "-90", "targets", "-40")));
    assertTrue(
        e.getMessage().contains("has no shard -90; its shards are [-80, - (serves nothing), 80-]"),
        e.getMessage());
  }
}
