package io.reshard.switcher;

/**
 * One step of the reshard runbook (DESIGN 4.8, docs/workflow.md), each its own class, in the order
 * an operator runs them: {@link KeyspaceInitPhase} (once per keyspace, before any workflow; {@link
 * SetVSchemaPhase} replaces the keyspace's vschema later, between workflows), then per workflow
 * {@link CreatePhase}, {@link CopyPhase}, {@link DiffPhase} (a diff, or a repair then a diff),
 * {@link SwitchReadsPhase}, {@link SwitchWritesPhase}, and then {@link CompletePhase}, or {@link
 * ReverseTrafficPhase} to move writes back; {@link CancelPhase} abandons a workflow before any
 * write switch. {@link WorkflowRunner} calls them in that order and is the only caller of the
 * workflow phases.
 *
 * <p>A phase object is made for one run of its step. It reads what it needs from the workflow's
 * stored record and the servers (DESIGN 5), so a step run again after a crash finds the same facts;
 * every state change it makes goes through {@link WorkflowEngine#transition}, every other change of
 * the record through {@link WorkflowEngine#update}. The steps differ in what they take (the record,
 * the operator's options) and return (the next record, a diff's reports, a shard map), so each
 * phase declares its own run method; this type names them and closes the list.
 */
public sealed interface Phase
    permits KeyspaceInitPhase,
        SetVSchemaPhase,
        CreatePhase,
        CopyPhase,
        DiffPhase,
        SwitchReadsPhase,
        SwitchWritesPhase,
        ReverseTrafficPhase,
        CompletePhase,
        CancelPhase {

  /**
   * The step as the operator's command names it, e.g. {@code "switch-traffic --reads"}; refusals
   * name it.
   */
  String name();
}
