/**
 * The copy and diff benchmark of issue 5 (docs/copy-diff-benchmark.md): the online copy against
 * {@code mariadb-dump | mariadb}, the diff against a plain primary-key scan and against {@code
 * pt-table-sync --print}. Entry class: {@link io.reshard.bench.copydiff.CopyDiffBenchmark}, run
 * with plain {@code java -cp} (it has no {@code reshard bench} verb).
 */
package io.reshard.bench.copydiff;
