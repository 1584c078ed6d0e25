/**
 * The switcher: the workflow state machine, the traffic switch with fencing, reverse, complete and
 * cancel; the single writer of the shard map (DESIGN 4.2, 4.3, 4.8).
 *
 * <p>Built so far: {@link io.reshard.switcher.WorkflowState} (the states and the table of legal
 * transitions), {@link io.reshard.switcher.Workflow} (the stored record), {@link
 * io.reshard.switcher.WorkflowEngine} (the one method that validates, persists, logs and publishes
 * a change) and {@link io.reshard.switcher.KafkaWorkflowStore} (the compacted workflows topic). The
 * phases and the switch itself come with issue 6. Entry class: {@link
 * io.reshard.switcher.WorkflowEngine}.
 */
package io.reshard.switcher;
