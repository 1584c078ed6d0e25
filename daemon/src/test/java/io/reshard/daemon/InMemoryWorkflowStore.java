package io.reshard.daemon;

import io.reshard.switcher.Workflow;
import io.reshard.switcher.WorkflowStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;

/** A {@link WorkflowStore} in memory, for tests. Thread-safe. */
final class InMemoryWorkflowStore implements WorkflowStore {
  private final Map<String, Workflow> records = new ConcurrentSkipListMap<>();

  @Override
  public void save(Workflow workflow) {
    records.put(workflow.name(), workflow);
  }

  @Override
  public Optional<Workflow> load(String name) {
    return Optional.ofNullable(records.get(name));
  }

  @Override
  public List<Workflow> list() {
    return new ArrayList<>(records.values());
  }
}
