/**
 * Benchmarks behind {@code reshard bench ...}: each starts what it measures on this machine, runs
 * the variants side by side in one run, and prints figures and ratios. Entry class for the router:
 * {@link io.reshard.bench.RouterBenchmark}.
 */
package io.reshard.bench;
