package io.reshard.bench.chaos;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Which faults a chaos run injects, where and when, drawn from its seed alone: the same seed and
 * options give the same plan, so a run is replayed by running it again with them (what the system
 * does in between still depends on timing, which no seed fixes).
 *
 * <p>Lifecycles are planned one after another: each of their {@link LifecycleStep steps} gets a
 * fault with probability {@code probability} (but never create and copy both, see {@link
 * #stepsWithAFault}), until {@code faults} are planned; the run drives exactly the lifecycles the
 * plan names. Kinds are dealt from shuffled decks that hold each chosen kind once, so every kind is
 * injected about equally often. Immutable.
 *
 * @param faults the planned faults in the order they are injected
 */
record FaultPlan(List<PlannedFault> faults) {

  /** Which process a fault hits, resolved against the lifecycle's servers when it is injected. */
  enum Target {
    DAEMON,
    BROKER,
    SOURCE,
    FIRST_TARGET,
    SECOND_TARGET;

    /** The name in the report. */
    String label() {
      return name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
    }
  }

  /**
   * One planned fault.
   *
   * @param index 1, 2, ... in injection order
   * @param lifecycle the lifecycle it falls in, from 1
   * @param step the step during which it is injected
   * @param kind what is done
   * @param target the process it hits
   * @param delayMillis how long after the step starts it is injected (at once if the step ended
   *     sooner)
   */
  record PlannedFault(
      int index,
      int lifecycle,
      LifecycleStep step,
      FaultKind kind,
      Target target,
      long delayMillis) {

    /**
     * One line for the report: {@code #3 lifecycle 1, copy: target kill -9 (first target) +840 ms}.
     */
    String describe() {
      return String.format(
          "#%d lifecycle %d, %s: %s (%s) +%d ms",
          index, lifecycle, step.label(), kind.label(), target.label(), delayMillis);
    }
  }

  /** Copies the list. */
  FaultPlan {
    faults = List.copyOf(faults);
  }

  /**
   * Draws a plan.
   *
   * @param seed the run's seed
   * @param faults how many faults, at least 1
   * @param kinds the kinds to deal from, at least one, no duplicates
   * @param probability the chance that a step gets a fault, in (0, 1]
   * @param maxDelayMillis the longest delay after a step starts, 0 or more
   * @throws IllegalArgumentException if an argument is out of range
   */
  static FaultPlan draw(
      long seed, int faults, List<FaultKind> kinds, double probability, long maxDelayMillis) {
    if (faults < 1 || kinds.isEmpty() || !(probability > 0 && probability <= 1)) {
      throw new IllegalArgumentException(
          "a plan needs at least one fault and one kind, and a probability in (0, 1]");
    }
    if (maxDelayMillis < 0 || kinds.stream().distinct().count() != kinds.size()) {
      throw new IllegalArgumentException("the delay must not be negative, kinds not repeated");
    }
    Random random = new Random(seed);
    List<FaultKind> deck = new ArrayList<>();
    List<PlannedFault> planned = new ArrayList<>();
    for (int lifecycle = 1; planned.size() < faults; lifecycle++) {
      for (LifecycleStep step : stepsWithAFault(random, probability)) {
        if (planned.size() == faults) {
          break;
        }
        if (deck.isEmpty()) {
          deck.addAll(kinds);
          Collections.shuffle(deck, random);
        }
        FaultKind kind = deck.remove(deck.size() - 1);
        Target target = target(kind, random);
        long delay = maxDelayMillis == 0 ? 0 : (long) (random.nextDouble() * (maxDelayMillis + 1));
        planned.add(new PlannedFault(planned.size() + 1, lifecycle, step, kind, target, delay));
      }
    }
    return new FaultPlan(planned);
  }

  /**
   * The steps of one lifecycle that get a fault, each with {@code probability}. Never both create
   * and copy: the wait for healing after a fault at create would let the copy end before the copy's
   * own fault, which must land while rows are being copied; copy keeps its fault.
   */
  private static List<LifecycleStep> stepsWithAFault(Random random, double probability) {
    List<LifecycleStep> steps = new ArrayList<>();
    for (LifecycleStep step : LifecycleStep.values()) {
      if (random.nextDouble() < probability) {
        steps.add(step);
      }
    }
    if (steps.contains(LifecycleStep.COPY)) {
      steps.remove(LifecycleStep.CREATE);
    }
    return steps;
  }

  private static Target target(FaultKind kind, Random random) {
    return switch (kind) {
      case DAEMON_KILL -> Target.DAEMON;
      case BROKER_KILL -> Target.BROKER;
      case SOURCE_KILL -> Target.SOURCE;
      case TARGET_KILL, TARGET_READ_LOCK ->
          random.nextBoolean() ? Target.FIRST_TARGET : Target.SECOND_TARGET;
      case SERVER_PAUSE ->
          List.of(Target.SOURCE, Target.FIRST_TARGET, Target.SECOND_TARGET).get(random.nextInt(3));
    };
  }

  /** How many lifecycles the plan spans (the run drives exactly these). */
  int lifecycles() {
    return faults.isEmpty() ? 0 : faults.get(faults.size() - 1).lifecycle();
  }

  /** The fault planned for {@code step} of lifecycle {@code lifecycle}, if any. */
  java.util.Optional<PlannedFault> at(int lifecycle, LifecycleStep step) {
    return faults.stream().filter(f -> f.lifecycle() == lifecycle && f.step() == step).findFirst();
  }
}
