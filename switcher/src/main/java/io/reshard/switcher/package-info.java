/**
 * The workflow state machine and traffic switch with fencing; the single writer of the shard map
 * (DESIGN.md 4.2, 4.3, 4.8).
 *
 * <p>Not implemented yet: issue 6 builds it.
 */
package io.reshard.switcher;
