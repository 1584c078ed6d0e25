package io.reshard.system;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * A whole-system run too long for the README's test command ({@code mvn -B verify} must stay under
 * 30 minutes on the 2-core machine): the chaos run and the phase-boundary crash walk. They run with
 * {@code mvn -B verify -Plong -pl system-tests -am}, which runs only these.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag(LongRun.TAG)
public @interface LongRun {
  /**
   * The JUnit tag the root pom's failsafe configuration leaves out, and profile {@code long} picks.
   */
  String TAG = "long";
}
