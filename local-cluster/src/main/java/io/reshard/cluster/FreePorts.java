package io.reshard.cluster;

/**
 * Finds blocks of consecutive free TCP ports on 127.0.0.1, for clusters whose ports are chosen at
 * run time (test clusters, benchmarks). Stateless and thread-safe; a port found free may of course
 * be taken by another process before it is used.
 */
public final class FreePorts {
  private FreePorts() {}

  /**
   * The first port {@code p >= from} such that {@code p .. p + count - 1} are all free, stepping by
   * 16 so that two blocks found in a row never overlap.
   *
   * @throws IllegalStateException if no such block exists below 65000
   */
  public static int block(int from, int count) {
    for (int p = from; p + count < 65000; p += Math.max(16, count)) {
      if (allFree(p, count)) {
        return p;
      }
    }
    throw new IllegalStateException("no " + count + " consecutive free ports from " + from);
  }

  private static boolean allFree(int first, int count) {
    for (int p = first; p < first + count; p++) {
      if (!OsProcesses.isPortFree(p)) {
        return false;
      }
    }
    return true;
  }
}
