package io.reshard.switcher;

import java.util.List;
import java.util.Optional;

/**
 * Where workflow records live (DESIGN 5: a compacted Kafka topic, key = workflow name). Every phase
 * is re-derived from what is stored here, so a restarted process continues where the record says.
 * Implementations are thread-safe.
 */
public interface WorkflowStore {

  /** Stores {@code workflow}, replacing its previous record; durable when this returns. */
  void save(Workflow workflow);

  /** The newest record of workflow {@code name}, if any. */
  Optional<Workflow> load(String name);

  /** The newest record of every workflow, by name. */
  List<Workflow> list();
}
