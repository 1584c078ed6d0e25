package io.reshard.testkit;

import io.reshard.cluster.Flavor;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Asks {@link LocalClusterExtension} for a cluster of servers of one {@link Flavor} for the
 * annotated test class (and its nested classes). A class without it gets the flavor of the system
 * property {@code reshard.test.flavor} (default {@code mariadb}), so a whole module's suite can run
 * on MySQL with {@code -Dreshard.test.flavor=mysql}. Each flavor's cluster is started once per test
 * JVM, by the first class that asks for it: a run whose classes never ask for MySQL never starts
 * one.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Inherited
public @interface UseFlavor {
  /** The servers' flavor. */
  Flavor value();
}
