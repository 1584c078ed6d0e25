package io.reshard.router;

/**
 * The body of a write transaction run by {@link Router#inTransaction}. It may run more than once
 * (after a stale-map refusal or a deadlock the whole transaction is retried), so it must not have
 * side effects outside the transaction.
 *
 * @param <T> what it returns
 */
@FunctionalInterface
public interface TransactionWork<T> {
  /** Runs the transaction's statements through {@code tx}; the router commits afterwards. */
  T run(RouterTransaction tx);
}
