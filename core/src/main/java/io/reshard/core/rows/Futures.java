package io.reshard.core.rows;

import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * Waiting for tasks that must all have ended before the caller goes on (a chunk's target writes
 * while the source's row locks are held; the appliers run to a diff's snapshot). Stateless.
 */
public final class Futures {
  private Futures() {}

  /**
   * Waits for every future, even after a failure and even when interrupted (no task may still run
   * when this returns), then rethrows the first failure.
   *
   * @param what what the tasks do, for messages, e.g. {@code "writing a chunk of messages"}
   * @throws InterruptedException if this thread was interrupted while waiting (its interrupt flag
   *     is set again), or a task was
   * @throws SQLException the first task's SQL failure
   * @throws IllegalStateException wrapping a first failure that is none of these (a runtime failure
   *     is rethrown as it is)
   */
  public static void awaitAll(List<? extends Future<?>> futures, String what)
      throws SQLException, InterruptedException {
    Throwable failure = null;
    boolean interrupted = false;
    for (Future<?> f : futures) {
      while (true) {
        try {
          f.get();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          failure = failure == null ? e.getCause() : failure;
          break;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
      throw new InterruptedException("interrupted while " + what);
    }
    if (failure instanceof SQLException e) {
      throw e;
    }
    if (failure instanceof InterruptedException e) {
      throw e;
    }
    if (failure instanceof RuntimeException e) {
      throw e;
    }
    if (failure != null) {
      throw new IllegalStateException(what + " failed", failure);
    }
  }
}
