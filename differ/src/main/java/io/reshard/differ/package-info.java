/**
 * The diff phase: row-by-row comparison of source and target at one consistent position, with a
 * per-table report (DESIGN.md 4.7; Vitess calls it VDiff).
 *
 * <p>Not implemented yet: issue 5 builds it.
 */
package io.reshard.differ;
