package io.reshard.cluster;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;

/**
 * The contents of {@code DIR/cluster.json}, which {@code cluster up} writes and scripts read:
 *
 * <pre>{@code
 * {"mariadb": [{"name", "role": "shard"|"spare", "host", "port", "socket", "user",
 *               "server_id", "pid", "datadir", "flavor": "mariadb"|"mysql"}, ...],
 *  "kafka": {"bootstrap": "host:port", "port", "controller_port", "pid"},
 *  "daemon": {"pid", "admin": "http://127.0.0.1:port"}}
 * }</pre>
 *
 * Servers are in order, shards first. The list keeps its name {@code mariadb} for the scripts that
 * read it, whatever the servers' {@link Flavor}; a server without {@code flavor} is MariaDB. Every
 * {@code port} and {@code pid} is a JSON integer; a {@code pid} of 0 means the process has not been
 * started. {@code daemon} is present only while a pipeline daemon started for this cluster ({@code
 * reshard daemon --cluster DIR}) runs; the daemon writes it itself once its admin endpoint listens
 * and removes it when it stops. Unknown keys are kept out of the model but tolerated on read, so
 * later versions may add keys.
 *
 * @param mariadb the servers, shards first
 * @param kafka the broker
 * @param daemon the pipeline daemon running for this cluster, or null
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ClusterDescriptor(List<Server> mariadb, Broker kafka, DaemonProcess daemon) {

  /** File name of the descriptor inside the cluster directory. */
  public static final String FILE_NAME = "cluster.json";

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /**
   * One database server.
   *
   * @param name the server's name ({@code db1}, {@code db2}, ...)
   * @param role {@code shard} or {@code spare}
   * @param host the address it listens on ({@code 127.0.0.1})
   * @param port its TCP port
   * @param socket the path of its unix socket
   * @param user the user that connects without a password over TCP ({@code root}: a local
   *     development default)
   * @param serverId its {@code server_id}, also its {@code gtid_domain_id}
   * @param pid the process id of its {@code mariadbd}, 0 if not started
   * @param datadir its data directory (binlogs live there too)
   * @param flavor {@code mariadb} or {@code mysql} ({@link Flavor#id()}); null reads as MariaDB
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Server(
      String name,
      String role,
      String host,
      int port,
      String socket,
      String user,
      @JsonProperty("server_id") int serverId,
      long pid,
      String datadir,
      String flavor) {

    /** A MariaDB server (a descriptor written before flavors existed). */
    public Server(
        String name,
        String role,
        String host,
        int port,
        String socket,
        String user,
        int serverId,
        long pid,
        String datadir) {
      this(name, role, host, port, socket, user, serverId, pid, datadir, Flavor.MARIADB.id());
    }

    /** Returns a copy with another pid. */
    public Server withPid(long newPid) {
      return new Server(name, role, host, port, socket, user, serverId, newPid, datadir, flavor);
    }

    /**
     * This server's flavor; {@link Flavor#MARIADB} when {@code flavor} is absent.
     *
     * @throws IllegalArgumentException if {@code flavor} names no flavor
     */
    public Flavor flavorOrDefault() {
      return Flavor.parse(flavor);
    }

    /**
     * A JDBC URL for this server's database {@code database} (may be empty for none), with the
     * driver of its flavor: {@code jdbc:mariadb://} or {@code jdbc:mysql://}.
     */
    public String jdbcUrl(String database) {
      return flavorOrDefault().jdbcPrefix() + host + ":" + port + "/" + database;
    }
  }

  /**
   * The Kafka broker.
   *
   * @param bootstrap {@code host:port} for {@code bootstrap.servers}
   * @param port the client listener's port
   * @param controllerPort the KRaft controller listener's port
   * @param pid the process id of the broker JVM, 0 if not started
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Broker(
      String bootstrap, int port, @JsonProperty("controller_port") int controllerPort, long pid) {

    /** Returns a copy with another pid. */
    public Broker withPid(long newPid) {
      return new Broker(bootstrap, port, controllerPort, newPid);
    }
  }

  /**
   * A descriptor without a daemon.
   *
   * @param mariadb the servers, shards first
   * @param kafka the broker
   */
  public ClusterDescriptor(List<Server> mariadb, Broker kafka) {
    this(mariadb, kafka, null);
  }

  /**
   * The pipeline daemon running for this cluster.
   *
   * @param pid the daemon JVM's process id
   * @param admin its admin endpoint, {@code http://host:port}
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record DaemonProcess(long pid, String admin) {}

  /** The servers whose role is {@code shard}, in order. */
  public List<Server> shards() {
    return mariadb.stream().filter(s -> "shard".equals(s.role())).toList();
  }

  /** The servers whose role is {@code spare}, in order. */
  public List<Server> spares() {
    return mariadb.stream().filter(s -> "spare".equals(s.role())).toList();
  }

  /** Returns a copy in which server {@code index} (0-based) has another pid. */
  public ClusterDescriptor withServerPid(int index, long pid) {
    List<Server> servers = new java.util.ArrayList<>(mariadb);
    servers.set(index, servers.get(index).withPid(pid));
    return new ClusterDescriptor(List.copyOf(servers), kafka, daemon);
  }

  /** Returns a copy in which the broker has another pid. */
  public ClusterDescriptor withKafkaPid(long pid) {
    return new ClusterDescriptor(mariadb, kafka.withPid(pid), daemon);
  }

  /** Returns a copy with another daemon entry; null removes it. */
  public ClusterDescriptor withDaemon(DaemonProcess newDaemon) {
    return new ClusterDescriptor(mariadb, kafka, newDaemon);
  }

  /**
   * Reads {@code dir/cluster.json}.
   *
   * @return the descriptor, or empty if the file does not exist
   * @throws ClusterException if the file exists but cannot be read or parsed
   */
  public static Optional<ClusterDescriptor> read(Path dir) {
    Path file = dir.resolve(FILE_NAME);
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    try {
      return Optional.of(JSON.readValue(file.toFile(), ClusterDescriptor.class));
    } catch (IOException e) {
      throw new ClusterException(
          ClusterException.Kind.NO_CLUSTER,
          file + " is not a readable cluster descriptor (" + e.getMessage() + ")",
          e);
    }
  }

  /**
   * Writes {@code dir/cluster.json} atomically (write to a temporary file, then rename), so a
   * reader never sees half a file.
   *
   * @throws ClusterException on an I/O error
   */
  public void write(Path dir) {
    Path file = dir.resolve(FILE_NAME);
    try {
      // A temporary file of its own per writer: the daemon records itself while `up` may write.
      Path tmp = Files.createTempFile(dir, FILE_NAME + ".", ".tmp");
      Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r--r--"));
      JSON.writeValue(tmp.toFile(), this);
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new ClusterException(
          ClusterException.Kind.OTHER, "cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  /** The descriptor as pretty-printed JSON. */
  public String toJson() {
    try {
      return JSON.writeValueAsString(this);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
