package io.reshard.switcher;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One workflow's stored record: what it moves, where it stands, and what the switch has fixed so
 * far. Immutable; every change makes a new record through {@link #transition} or one of the {@code
 * with...} methods, and {@link WorkflowEngine} persists it.
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
    @JsonProperty("updated_at") Instant updatedAt) {

  /** Checks the required fields. */
  public Workflow {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(keyspace, "keyspace");
    Objects.requireNonNull(state, "state");
    sources = List.copyOf(sources);
    targets = List.copyOf(targets);
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
    return new Workflow(
        name, keyspace, sources, targets, to, p0, journalPosition, lastDiffClean, lastError, now);
  }

  /** This workflow with the journal's frozen position G recorded. */
  public Workflow withJournal(String g, Instant now) {
    return new Workflow(
        name, keyspace, sources, targets, state, p0, g, lastDiffClean, lastError, now);
  }

  /** This workflow with the outcome of a diff recorded. */
  public Workflow withDiff(boolean clean, Instant now) {
    return new Workflow(
        name, keyspace, sources, targets, state, p0, journalPosition, clean, lastError, now);
  }

  /** This workflow with an error recorded, or cleared with null. */
  public Workflow withError(String error, Instant now) {
    return new Workflow(
        name, keyspace, sources, targets, state, p0, journalPosition, lastDiffClean, error, now);
  }
}
