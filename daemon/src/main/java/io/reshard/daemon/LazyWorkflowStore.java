package io.reshard.daemon;

import io.reshard.switcher.KafkaWorkflowStore;
import io.reshard.switcher.Workflow;
import io.reshard.switcher.WorkflowStore;
import java.util.List;
import java.util.Optional;

/**
 * The daemon's {@link KafkaWorkflowStore}, opened on first use rather than at start, so the daemon
 * and its admin endpoint come up while Kafka is still unreachable; a failed open is tried again on
 * the next call (each call then throws the store's {@code ReshardException}). Thread-safe.
 */
final class LazyWorkflowStore implements WorkflowStore, AutoCloseable {
  private final String bootstrap;
  private final String topic;
  private KafkaWorkflowStore store;

  LazyWorkflowStore(String bootstrap, String topic) {
    this.bootstrap = bootstrap;
    this.topic = topic;
  }

  private synchronized KafkaWorkflowStore store() {
    if (store == null) {
      store = KafkaWorkflowStore.open(bootstrap, topic);
    }
    return store;
  }

  @Override
  public void save(Workflow workflow) {
    store().save(workflow);
  }

  @Override
  public Optional<Workflow> load(String name) {
    return store().load(name);
  }

  @Override
  public List<Workflow> list() {
    return store().list();
  }

  @Override
  public synchronized void close() {
    if (store != null) {
      store.close();
      store = null;
    }
  }
}
