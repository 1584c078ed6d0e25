package io.reshard.switcher;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place a workflow's state changes: {@link #transition} validates the move against {@link
 * WorkflowState}'s table, persists the new record, logs it with the workflow's context, and
 * publishes it to listeners, in that order. A change that fails validation or persistence is not
 * logged as done and not published. Thread-safe if the store is.
 */
public final class WorkflowEngine {
  private static final Logger LOG = LoggerFactory.getLogger(WorkflowEngine.class);

  private final WorkflowStore store;
  private final Clock clock;
  private final List<Consumer<Workflow>> listeners = new CopyOnWriteArrayList<>();

  /**
   * @param store where records are persisted
   * @param clock the time recorded in {@code updated_at} (injected so tests control it)
   */
  public WorkflowEngine(WorkflowStore store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  /** Calls {@code listener} with every record this engine persists. */
  public void addListener(Consumer<Workflow> listener) {
    listeners.add(listener);
  }

  /**
   * Moves {@code workflow} to {@code to}, persists, logs and publishes.
   *
   * @param why a short reason for the log, e.g. {@code "copy done"}
   * @return the persisted record
   * @throws IllegalTransitionException if the move is not legal; nothing is persisted
   */
  public Workflow transition(Workflow workflow, WorkflowState to, String why) {
    Workflow next = workflow.transition(to, clock.instant());
    store.save(next);
    LOG.info(
        "workflow {} ({} {} -> {}): {} -> {}: {}",
        next.name(),
        next.keyspace(),
        next.sources(),
        next.targets(),
        workflow.state(),
        to,
        why);
    listeners.forEach(l -> l.accept(next));
    Failpoints.reach("state:" + to.name());
    return next;
  }

  /** Persists a record whose state did not change (a diff result, an error, the journal). */
  public Workflow update(Workflow workflow) {
    store.save(workflow);
    listeners.forEach(l -> l.accept(workflow));
    return workflow;
  }

  public WorkflowStore store() {
    return store;
  }
}
