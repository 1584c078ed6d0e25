package io.reshard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link OsProcesses#stop} with real processes: it returns only once the process has exited and its
 * pid is gone, takes SIGKILL after the grace and says so, and leaves a process that is not ours
 * alone; {@link OsProcesses#isZombie} tells an exited process whose parent has not collected it.
 */
class OsProcessesTest {
  /** A {@code sleep} whose odd length is the marker that makes it ours. */
  private static Process sleeper(String seconds, boolean ignoreSigterm) throws Exception {
    String trap = ignoreSigterm ? "trap '' TERM; " : "";
    Process p = new ProcessBuilder("sh", "-c", trap + "exec sleep " + seconds).start();
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!OsProcesses.isOurs(p.pid(), seconds)) { // until sh has exec'd sleep
      assertTrue(System.nanoTime() < deadline, "sleep " + seconds + " did not start");
      Thread.sleep(10);
    }
    return p;
  }

  @Test
  void aStoppedProcessIsGoneWhenStopReturns() throws Exception {
    Process p = sleeper("61.001", false);
    OsProcesses.Stop s = OsProcesses.stop(p.pid(), "61.001", Duration.ofSeconds(30));
    assertEquals(new OsProcesses.Stop(true, false, true), s);
    assertTrue(ProcessHandle.of(p.pid()).isEmpty(), "pid " + p.pid() + " is gone");
    assertEquals("stopped", s.describe(Duration.ofSeconds(30)));
  }

  @Test
  void aProcessThatIgnoresSigtermTakesSigkillAfterTheGraceAndTheLineSaysSo() throws Exception {
    Process p = sleeper("61.002", true);
    long t0 = System.nanoTime();
    OsProcesses.Stop s = OsProcesses.stop(p.pid(), "61.002", Duration.ofSeconds(1));
    assertTrue(System.nanoTime() - t0 >= Duration.ofSeconds(1).toNanos(), "the grace was given");
    assertEquals(new OsProcesses.Stop(true, true, true), s);
    assertTrue(ProcessHandle.of(p.pid()).isEmpty(), "pid " + p.pid() + " is gone");
    assertEquals(137, p.waitFor(), "ended by SIGKILL");
    assertEquals(
        "stopped with SIGKILL (it had not exited 1 s after SIGTERM)",
        s.describe(Duration.ofSeconds(1)));
  }

  @Test
  void aProcessThatIsNotOursIsLeftAlone() throws Exception {
    Process p = sleeper("61.003", false);
    try {
      assertEquals(
          OsProcesses.Stop.NOT_RUNNING,
          OsProcesses.stop(p.pid(), "another-cluster-dir", Duration.ofSeconds(1)));
      assertTrue(p.isAlive());
      assertEquals("was not running", OsProcesses.Stop.NOT_RUNNING.describe(Duration.ZERO));
    } finally {
      p.destroyForcibly().waitFor();
    }
  }

  @Test
  void anExitedChildThatItsParentHasNotCollectedIsAZombie() throws Exception {
    // sh starts a short sleep, then becomes a long sleep that never waits for it
    Process parent = new ProcessBuilder("sh", "-c", "sleep 0.2 & exec sleep 61.004").start();
    try {
      Path children =
          Path.of(
              "/proc",
              Long.toString(parent.pid()),
              "task",
              Long.toString(parent.pid()),
              "children");
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      long child = 0;
      while (child == 0 || !OsProcesses.isZombie(child)) {
        assertTrue(System.nanoTime() < deadline, "no zombie child of " + parent.pid());
        List<String> pids = List.of(Files.readString(children).trim().split("\\s+"));
        child = pids.get(0).isEmpty() ? 0 : Long.parseLong(pids.get(0));
        Thread.sleep(20);
      }
      assertTrue(ProcessHandle.of(child).isPresent(), "a zombie still has its pid");
      assertFalse(OsProcesses.isZombie(parent.pid()), "the parent runs");
    } finally {
      parent.destroyForcibly().waitFor();
    }
  }
}
