package io.reshard.router;

import java.util.Objects;

/**
 * Where a shard's server is: a JDBC URL without a database, and credentials. The keyspace's
 * database name is appended by the router.
 *
 * @param url e.g. {@code jdbc:mariadb://127.0.0.1:13306/}
 * @param user the user
 * @param password the password; never logged or printed ({@link #toString()} hides it)
 */
public record JdbcEndpoint(String url, String user, String password) {

  /** Checks that nothing is null. */
  public JdbcEndpoint {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(password, "password");
  }

  /** The URL for database {@code database} on this server. */
  public String urlFor(String database) {
    return (url.endsWith("/") ? url : url + "/") + database;
  }

  @Override
  public String toString() {
    return "JdbcEndpoint[" + url + ", user=" + user + ", password=***]";
  }
}
