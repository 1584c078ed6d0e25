/**
 * The switcher: the workflow state machine, the traffic switch with fencing, reverse, complete and
 * cancel; the single writer of the shard map (DESIGN 4.2, 4.3, 4.8). Entry class: {@link
 * io.reshard.switcher.WorkflowRunner}, one workflow's runbook; {@link
 * io.reshard.switcher.KeyspaceInitPhase} before any workflow, {@link
 * io.reshard.switcher.SetVSchemaPhase} to replace a keyspace's vschema between workflows, and
 * {@link io.reshard.switcher.WorkflowSpecValidator} for a new workflow's request. The refusals
 * before the first write are {@code NameRules}, {@code TargetRanges} and {@code VSchemaCheck} (with
 * {@code VindexFit} and {@code ShardingKeyScan}), collected by {@code RefusalReasons}.
 *
 * <p>The runbook's steps are the {@link io.reshard.switcher.Phase}s, each its own class: {@code
 * KeyspaceInitPhase}, {@code SetVSchemaPhase}, {@code CreatePhase}, {@code CopyPhase}, {@code
 * DiffPhase} (diff, or repair then diff), {@code SwitchReadsPhase}, {@code SwitchWritesPhase},
 * {@code ReverseTrafficPhase}, {@code CompletePhase} and {@code CancelPhase}. {@link
 * io.reshard.switcher.WorkflowState} holds the states and the table of legal transitions, {@link
 * io.reshard.switcher.Workflow} the stored record, {@link io.reshard.switcher.WorkflowEngine} the
 * one method that validates, persists, logs and publishes a change, and {@link
 * io.reshard.switcher.KafkaWorkflowStore} the compacted workflows topic.
 *
 * <p>Any N to M shape (DESIGN 4.9): {@code Streams} pairs each applier with the shards it overlaps,
 * {@code SourceTables} refuses sources whose tables differ, and {@link
 * io.reshard.switcher.WorkflowSpec#stateKey} keys each source's copy and diff progress. Planning a
 * workflow's target ranges from the real rows: {@link io.reshard.switcher.KeyDistributionSampler}
 * reads a sample of keyspace ids from the servers and {@link io.reshard.switcher.RangePlanner} cuts
 * it into ranges ({@code reshard plan}).
 */
package io.reshard.switcher;
