package io.reshard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import org.junit.jupiter.api.Test;

/**
 * The port check against real sockets: a port held a moment by a socket that does not listen (as a
 * free-port probe holds it) is waited for; one held for good, or by a listener, is refused.
 */
class PortCheckTest {
  @Test
  void aPortHeldForAMomentWithoutAListenerIsWaitedFor() throws Exception {
    int port = FreePorts.block(41000, 1);
    Socket probe = boundOnly(port);
    assertFalse(OsProcesses.isPortFree(port), "the bound socket holds the port");
    Thread release =
        new Thread(
            () -> {
              OsProcesses.sleep(java.time.Duration.ofMillis(300));
              close(probe);
            });
    release.start();
    PortCheck.requireFree(port, "db1");
    release.join();
    assertTrue(OsProcesses.isPortFree(port));
  }

  @Test
  void aPortHeldForGoodIsRefused() throws Exception {
    int port = FreePorts.block(41100, 1);
    try (Socket held = boundOnly(port)) {
      ClusterException e =
          assertThrows(ClusterException.class, () -> PortCheck.requireFree(port, "db1"));
      assertEquals(ClusterException.Kind.PORT_IN_USE, e.kind());
      assertTrue(e.getMessage().startsWith("port " + port + " (wanted by db1) is already in use"));
    }
    try (ServerSocket listener =
        new ServerSocket(port, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      ClusterException e =
          assertThrows(ClusterException.class, () -> PortCheck.requireFree(port, "kafka"));
      assertTrue(
          e.getMessage().contains(" by pid " + ProcessHandle.current().pid()), e.getMessage());
    }
  }

  private static Socket boundOnly(int port) throws Exception {
    Socket s = new Socket();
    s.bind(new InetSocketAddress("127.0.0.1", port));
    return s;
  }

  private static void close(Socket s) {
    try {
      s.close();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
