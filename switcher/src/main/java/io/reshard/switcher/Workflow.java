package io.reshard.switcher;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.reshard.cdc.HandOver;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One workflow's stored record: what it moves, where it stands, and what the switch has fixed so
 * far. Immutable; every change makes a new record through {@link #transition} or one of the {@code
 * with...} methods, and {@link WorkflowEngine} persists it. Everything a restarted daemon needs to
 * re-derive the workflow's streams is here (DESIGN 5): the servers, the stream generation and the
 * positions each generation starts from.
 *
 * @param name the workflow's name, unique per cluster
 * @param keyspace the keyspace
 * @param sources the source shard names, e.g. {@code [c0-]}
 * @param targets the target shard names, e.g. {@code [c0-e0, e0-]}
 * @param state the current state
 * @param p0 the source GTID position read at creation; the streams start there and the copy waits
 *     until they have covered it (DESIGN 4.6)
 * @param journalPosition the source position G at which the forward streams were frozen, written
 *     with the journal record (the point of no return); null before
 * @param lastDiffClean whether the last diff found no difference; null if none ran
 * @param lastError the last error a stream or phase reported, or null
 * @param updatedAt when the record was last changed
 * @param servers per shard (sources and targets), the server that holds it: the endpoint reference
 *     the shard map uses, e.g. {@code c0-e0 -> db5}; empty in records written before it existed
 * @param generation the generation of the forward streams (1 at creation, +1 after every reverse
 *     traffic); names the appliers' stored stream state, {@code NAME-fwdN} and {@code NAME-revN}
 * @param forwardStart per source shard, the position the current forward generation starts from
 * @param reverseStart per target shard, the position the reverse streams start from, recorded
 *     before any target takes a write; null before the write switch
 * @param reversePosition the targets' position at which reverse traffic froze the reverse streams
 *     (the reverse direction's point of no return); null otherwise
 * @param captureGap changes of a source the streams never received, because its capture was skipped
 *     past what it could not publish: which shard, from and to which position, and why. Until a
 *     diff is clean again the targets are known to miss changes, so neither traffic switch is
 *     allowed; null when there is none
 * @param schemaObjects the trigger choice, the stored trigger definitions and the views and
 *     routines create carried or not ({@link SchemaObjects#NONE} in records written before it)
 * @param handOvers every move of write ownership so far, oldest first: each write switch and each
 *     reverse traffic from its journal on; kept for good, so that the keyspace change stream can
 *     follow every one of them from the newest record alone (DESIGN 4.10)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Workflow(
    String name,
    String keyspace,
    List<String> sources,
    List<String> targets,
    WorkflowState state,
    String p0,
    @JsonProperty("journal_position") String journalPosition,
    @JsonProperty("last_diff_clean") Boolean lastDiffClean,
    @JsonProperty("last_error") String lastError,
    @JsonProperty("updated_at") Instant updatedAt,
    Map<String, String> servers,
    int generation,
    @JsonProperty("forward_start") Map<String, String> forwardStart,
    @JsonProperty("reverse_start") Map<String, String> reverseStart,
    @JsonProperty("reverse_position") String reversePosition,
    @JsonProperty("capture_gap") String captureGap,
    @JsonProperty("schema_objects") SchemaObjects schemaObjects,
    @JsonProperty("handovers") List<HandOver> handOvers) {

  /** Checks the required fields; the constructor the stored JSON is read with. */
  @JsonCreator
  public Workflow {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(keyspace, "keyspace");
    Objects.requireNonNull(state, "state");
    sources = List.copyOf(sources);
    targets = List.copyOf(targets);
    servers = servers == null ? Map.of() : Map.copyOf(servers);
    generation = Math.max(1, generation);
    forwardStart = forwardStart == null ? Map.of() : Map.copyOf(forwardStart);
    reverseStart = reverseStart == null ? null : Map.copyOf(reverseStart);
    schemaObjects = schemaObjects == null ? SchemaObjects.NONE : schemaObjects;
    handOvers = handOvers == null ? List.of() : List.copyOf(handOvers);
  }

  /** A record without servers or stream generations (as written before they were stored). */
  public Workflow(
      String name,
      String keyspace,
      List<String> sources,
      List<String> targets,
      WorkflowState state,
      String p0,
      String journalPosition,
      Boolean lastDiffClean,
      String lastError,
      Instant updatedAt) {
    this(
        name,
        keyspace,
        sources,
        targets,
        state,
        p0,
        journalPosition,
        lastDiffClean,
        lastError,
        updatedAt,
        null,
        1,
        null,
        null,
        null,
        null,
        null,
        null);
  }

  /** A new workflow in state {@link WorkflowState#CREATED}. */
  public static Workflow create(
      String name,
      String keyspace,
      List<String> sources,
      List<String> targets,
      String p0,
      Instant now) {
    return new Workflow(
        name, keyspace, sources, targets, WorkflowState.CREATED, p0, null, null, null, now);
  }

  /**
   * This workflow in state {@code to}.
   *
   * @throws IllegalTransitionException if the state table does not allow it
   */
  public Workflow transition(WorkflowState to, Instant now) {
    if (!state.canMoveTo(to)) {
      throw new IllegalTransitionException(name, state, to);
    }
    Change c = change(now);
    c.state = to;
    return c.build();
  }

  /** This workflow with the journal's frozen position G recorded. */
  public Workflow withJournal(String g, Instant now) {
    Change c = change(now);
    c.journalPosition = g;
    return c.build();
  }

  /**
   * This workflow with the outcome of a diff recorded; a clean one also clears a recorded {@link
   * #captureGap}: the targets then hold what the source holds.
   */
  public Workflow withDiff(boolean clean, Instant now) {
    Change c = change(now);
    c.lastDiffClean = clean;
    if (clean) {
      c.captureGap = null;
    }
    return c.build();
  }

  /**
   * This workflow with changes recorded that its streams never received ({@link #captureGap}), and
   * its last diff no longer counting: a diff must find and repair what they missed.
   */
  public Workflow withCaptureGap(String gap, Instant now) {
    Change c = change(now);
    c.lastDiffClean = null;
    c.captureGap = gap;
    return c.build();
  }

  /** This workflow with no diff recorded: the data moved since the last one. */
  public Workflow withoutDiff(Instant now) {
    Change c = change(now);
    c.lastDiffClean = null;
    return c.build();
  }

  /** This workflow with an error recorded, or cleared with null. */
  public Workflow withError(String error, Instant now) {
    Change c = change(now);
    c.lastError = error;
    return c.build();
  }

  /** This workflow with the servers of its shards recorded. */
  public Workflow withServers(Map<String, String> shardServers, Instant now) {
    Change c = change(now);
    c.servers = shardServers;
    return c.build();
  }

  /**
   * This workflow with a new forward stream generation starting at {@code start}; the journal and
   * the reverse positions are cleared (they belong to the previous switch).
   */
  public Workflow withForward(int newGeneration, Map<String, String> start, Instant now) {
    Change c = change(now);
    c.generation = newGeneration;
    c.forwardStart = start;
    c.journalPosition = null;
    c.reverseStart = null;
    c.reversePosition = null;
    return c.build();
  }

  /** This workflow with what create found and carried of the keyspace's other objects. */
  public Workflow withSchemaObjects(SchemaObjects objects, Instant now) {
    Change c = change(now);
    c.schemaObjects = objects;
    return c.build();
  }

  /** This workflow with the reverse streams' start positions recorded. */
  public Workflow withReverseStart(Map<String, String> start, Instant now) {
    Change c = change(now);
    c.reverseStart = start;
    return c.build();
  }

  /**
   * This workflow with one more hand-over of write ownership: {@code handOver} (the giving side of
   * a write switch, or a whole reverse traffic).
   */
  public Workflow withHandOver(HandOver handOver) {
    Change c = change(updatedAt);
    c.handOvers = new ArrayList<>(handOvers);
    c.handOvers.add(handOver);
    return c.build();
  }

  /**
   * This workflow with the taking side of its newest hand-over recorded, unless recorded already (a
   * restarted switch keeps the first positions: no taker had written before them).
   */
  public Workflow withHandOverTaken(Map<String, String> positions) {
    if (handOvers.isEmpty() || handOvers.get(handOvers.size() - 1).taken()) {
      return this;
    }
    Change c = change(updatedAt);
    c.handOvers = new ArrayList<>(handOvers);
    c.handOvers.set(c.handOvers.size() - 1, handOvers.get(handOvers.size() - 1).takenBy(positions));
    return c.build();
  }

  /** This workflow with the position at which reverse traffic froze the reverse streams. */
  public Workflow withReversePosition(String position, Instant now) {
    Change c = change(now);
    c.reversePosition = position;
    return c.build();
  }

  /** A copy of this record to change, updated at {@code now}. */
  private Change change(Instant now) {
    Change c = new Change(this);
    c.updatedAt = now;
    return c;
  }

  /**
   * The fields a change may set, copied from a record; the identity (name, keyspace, sources,
   * targets, P0) is never changed.
   */
  private static final class Change {
    private final Workflow from;
    WorkflowState state;
    String journalPosition;
    Boolean lastDiffClean;
    String lastError;
    Instant updatedAt;
    Map<String, String> servers;
    int generation;
    Map<String, String> forwardStart;
    Map<String, String> reverseStart;
    String reversePosition;
    String captureGap;
    SchemaObjects schemaObjects;
    List<HandOver> handOvers;

    Change(Workflow w) {
      from = w;
      state = w.state;
      journalPosition = w.journalPosition;
      lastDiffClean = w.lastDiffClean;
      lastError = w.lastError;
      updatedAt = w.updatedAt;
      servers = w.servers;
      generation = w.generation;
      forwardStart = w.forwardStart;
      reverseStart = w.reverseStart;
      reversePosition = w.reversePosition;
      captureGap = w.captureGap;
      schemaObjects = w.schemaObjects;
      handOvers = w.handOvers;
    }

    Workflow build() {
      return new Workflow(
          from.name,
          from.keyspace,
          from.sources,
          from.targets,
          state,
          from.p0,
          journalPosition,
          lastDiffClean,
          lastError,
          updatedAt,
          servers,
          generation,
          forwardStart,
          reverseStart,
          reversePosition,
          captureGap,
          schemaObjects,
          handOvers);
    }
  }
}
