/**
 * {@code reshard bench chaos}: whole lifecycles of a split on a cluster of its own while faults are
 * injected at seeded moments, and whether the system heals without help. Entry class: {@link
 * io.reshard.bench.chaos.ChaosCommand} (the verb), which runs {@link
 * io.reshard.bench.chaos.ChaosRun}, the runbook; each lifecycle is driven by {@link
 * io.reshard.bench.chaos.LifecycleDriver}; the plan is {@link io.reshard.bench.chaos.FaultPlan},
 * healing is judged by {@link io.reshard.bench.chaos.HealWatch}, the end state by {@link
 * io.reshard.bench.chaos.EndChecks}. docs/chaos.md describes the method.
 */
package io.reshard.bench.chaos;
