package io.reshard.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The daemon as a host of services: order of start and stop, a failed start, health. */
class DaemonTest {
  private final List<String> events = new CopyOnWriteArrayList<>();

  /** A service that records its start and stop. */
  private final class FakeService implements DaemonService {
    private final String name;
    private final RuntimeException failOnStart;
    private volatile ServiceState state = ServiceState.NEW;

    FakeService(String name, RuntimeException failOnStart) {
      this.name = name;
      this.failOnStart = failOnStart;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public void start() {
      events.add("start " + name);
      if (failOnStart != null) {
        throw failOnStart;
      }
      state = ServiceState.RUNNING;
    }

    @Override
    public void stop() {
      events.add("stop " + name);
      state = ServiceState.STOPPED;
    }

    @Override
    public ServiceState state() {
      return state;
    }
  }

  private static DaemonConfig config() {
    DaemonConfigBuilder b =
        DaemonConfig.builder().set("kafka.bootstrap.servers", "127.0.0.1:1").set("admin.port", "0");
    String[] shards = {"-80", "80-"};
    for (int i = 0; i < shards.length; i++) {
      b.set("shards." + i + ".keyspace", "ks")
          .set("shards." + i + ".shard", shards[i])
          .set("shards." + i + ".host", "127.0.0.1")
          .set("shards." + i + ".user", "u")
          .set("shards." + i + ".server.id", Integer.toString(10 + i));
    }
    return b.validate();
  }

  private Daemon daemon(DaemonService runner) {
    return Daemon.builder(config())
        .workflowStore(new InMemoryWorkflowStore())
        .captureServices(c -> new FakeService("capture/" + c.shard().id(), null))
        .addService(runner)
        .build();
  }

  @Test
  void servicesStartInOrderAndStopInReverseOrder() throws Exception {
    Daemon d = daemon(new FakeService("runner", null));
    d.start();
    assertEquals(List.of("start capture/ks/-80", "start capture/ks/80-", "start runner"), events);
    List<ServiceStatus> status = d.status();
    assertEquals(
        List.of("admin", "capture/ks/-80", "capture/ks/80-", "runner"),
        status.stream().map(ServiceStatus::name).toList());
    assertEquals(ServiceState.LISTENING, status.get(0).state());
    assertTrue(d.adminEndpoint().toString().startsWith("http://127.0.0.1:"));

    HttpResponse<String> health =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(d.adminEndpoint().resolve("/health")).build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(200, health.statusCode());
    assertTrue(health.body().contains("\"name\":\"runner\",\"state\":\"RUNNING\""), health.body());

    events.clear();
    Thread stopper = new Thread(d::stop);
    stopper.start();
    d.awaitStopped();
    stopper.join();
    assertEquals(List.of("stop runner", "stop capture/ks/80-", "stop capture/ks/-80"), events);
    assertEquals(ServiceState.STOPPED, d.status().get(0).state());
    d.stop(); // idempotent
    assertEquals(3, events.size());
  }

  @Test
  void aServiceThatCannotStartStopsTheOnesStartedBeforeIt() throws Exception {
    IllegalStateException boom = new IllegalStateException("runner cannot start");
    Daemon d = daemon(new FakeService("runner", boom));
    IllegalStateException thrown = assertThrows(IllegalStateException.class, d::start);
    assertSame(boom, thrown);
    assertEquals(
        List.of(
            "start capture/ks/-80",
            "start capture/ks/80-",
            "start runner",
            "stop capture/ks/80-",
            "stop capture/ks/-80"),
        events);
    assertEquals(
        ServiceState.STOPPED, d.status().get(0).state(), "the admin endpoint was stopped too");
    Thread waiter =
        new Thread(
            () -> {
              try {
                d.awaitStopped();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    waiter.start();
    waiter.join(TimeUnit.SECONDS.toMillis(5));
    assertTrue(!waiter.isAlive(), "awaitStopped returns after a failed start");
  }

  @Test
  void aTakenAdminPortIsARefusalNamingThePort() throws Exception {
    Daemon first = daemon(new FakeService("runner", null));
    first.start();
    try {
      int port = first.adminEndpoint().getPort();
      DaemonConfig taken =
          DaemonConfig.builder()
              .set("kafka.bootstrap.servers", "127.0.0.1:1")
              .set("admin.port", Integer.toString(port))
              .validate();
      Daemon second = Daemon.builder(taken).workflowStore(new InMemoryWorkflowStore()).build();
      DaemonStartException e = assertThrows(DaemonStartException.class, second::start);
      assertTrue(e.getMessage().contains("127.0.0.1:" + port), e.getMessage());
      try (Socket s = new Socket("127.0.0.1", port)) {
        assertTrue(s.isConnected(), "the first daemon still listens");
      } catch (IOException x) {
        throw new AssertionError("the first daemon's endpoint went away", x);
      }
    } finally {
      first.stop();
    }
  }
}
