/**
 * Benchmarks behind {@code reshard bench ...}: each starts what it measures on this machine, runs
 * the variants side by side in one run, and prints figures and ratios. Entry class: {@link
 * io.reshard.bench.BenchCommand} (the {@code bench} verb), which runs {@link
 * io.reshard.bench.StartupBenchmark} ({@code startup}), {@link io.reshard.bench.RouterBenchmark}
 * ({@code router}) and {@link io.reshard.bench.CutoverBenchmark} ({@code cutover}); {@code chaos}
 * is {@link io.reshard.bench.chaos.ChaosCommand} in {@code io.reshard.bench.chaos}. The copy and
 * diff benchmark is in {@code io.reshard.bench.copydiff}; the cdc benchmark, which needs Debezium,
 * in {@code io.reshard.bench.cdc} (sub-module {@code lab/cdc-bench}, profile {@code bench}).
 */
package io.reshard.bench;
