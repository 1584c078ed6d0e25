package io.reshard.core.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A module's configuration keys, in documentation order (modelled on Kafka's {@code ConfigDef}):
 * {@link #parse} checks a map of strings against every key and reports every problem at once,
 * giving frozen {@link ConfigValues}; {@link #documentation()} renders the reference table.
 * Immutable and thread-safe.
 *
 * <p>Problem texts: {@code KEY: required (DOC)}, {@code KEY = 'VALUE': PROBLEM}, and for a secret
 * {@code KEY: PROBLEM} (its value is never echoed). {@code KEY} carries the caller's prefix, e.g.
 * {@code shards.0.host}.
 */
public final class ConfigDef {

  /**
   * Resolves a secret's text before it is validated, e.g. a {@code ${env:NAME}} reference.
   *
   * <p>Returns the value, or null after reporting a problem (naming {@code key}, never the value).
   */
  @FunctionalInterface
  public interface SecretResolver {
    /** Secrets as given. */
    SecretResolver AS_GIVEN = (key, text, problems) -> text;

    /**
     * @param key the key's full name, for problems
     * @param text the secret's text as given
     * @param problems where a problem goes
     */
    String resolve(String key, String text, Consumer<String> problems);
  }

  private final List<ConfigKey> keys;
  private final Map<String, ConfigKey> byName;
  private final Function<ConfigValues, List<String>> crossCheck;

  /**
   * @param keys the keys in documentation order; names are unique
   */
  public ConfigDef(List<ConfigKey> keys) {
    this(keys, v -> List.of());
  }

  /**
   * @param keys the keys in documentation order; names are unique
   * @param crossCheck problems between keys (e.g. a minimum above a maximum), each naming the keys;
   *     run with the keys whose own value is fine, so it must pass over a check whose keys are
   *     absent ({@link ConfigValues#has}); its problems come with every other one
   */
  public ConfigDef(List<ConfigKey> keys, Function<ConfigValues, List<String>> crossCheck) {
    this.keys = List.copyOf(keys);
    this.crossCheck = crossCheck;
    Map<String, ConfigKey> m = new LinkedHashMap<>();
    for (ConfigKey k : this.keys) {
      if (m.put(k.name(), k) != null) {
        throw new IllegalArgumentException("key " + k.name() + " is declared twice");
      }
    }
    this.byName = Map.copyOf(m);
  }

  /** Every key, in documentation order. */
  public List<ConfigKey> keys() {
    return keys;
  }

  /** The key named {@code name}, if declared. */
  public Optional<ConfigKey> find(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  /** True if {@code name} is declared. */
  public boolean contains(String name) {
    return byName.containsKey(name);
  }

  /** The keys of {@code raw} that are not declared, in {@code raw}'s order. */
  public List<String> unknownKeys(Map<String, String> raw) {
    return raw.keySet().stream().filter(k -> !byName.containsKey(k)).toList();
  }

  /**
   * Parses and checks every declared key strictly: an undeclared key is a problem too.
   *
   * @param raw key to value
   * @throws ConfigException listing every problem
   */
  public ConfigValues parse(Map<String, String> raw) {
    List<String> problems = new ArrayList<>();
    new java.util.TreeSet<>(unknownKeys(raw)).forEach(k -> problems.add(k + ": unknown key"));
    ConfigValues values = parse(raw, "", SecretResolver.AS_GIVEN, problems);
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
    return values;
  }

  /**
   * Parses and checks every declared key; undeclared keys of {@code raw} are ignored (the caller
   * decides what they mean). A missing key takes its default; a value is stripped, a secret's is
   * not.
   *
   * @param raw key (without {@code prefix}) to value
   * @param prefix put before a key's name in problems, e.g. {@code shards.0.}; may be empty
   * @param secrets resolves secrets' references
   * @param problems where every problem is added
   * @return the values of the keys that passed (all of them if no problem was added)
   */
  public ConfigValues parse(
      Map<String, String> raw, String prefix, SecretResolver secrets, List<String> problems) {
    Map<String, String> values = new LinkedHashMap<>();
    for (ConfigKey k : keys) {
      String v = check(prefix + k.name(), k, raw.get(k.name()), secrets, problems);
      if (v != null) {
        values.put(k.name(), v);
      }
    }
    ConfigValues result = new ConfigValues(this, values);
    problems.addAll(crossCheck.apply(result));
    return result;
  }

  /** The default values of every key; only for a definition without required keys. */
  public ConfigValues defaults() {
    return parse(Map.of());
  }

  private static String check(
      String fullName, ConfigKey k, String raw, SecretResolver secrets, List<String> problems) {
    if (raw == null) {
      if (k.required()) {
        problems.add(fullName + ": required (" + k.doc() + ")");
        return null;
      }
      raw = k.defaultValue();
    }
    String v;
    if (k.secret()) {
      v = secrets.resolve(fullName, raw, problems::add);
      if (v == null) {
        return null;
      }
    } else {
      v = raw.strip();
    }
    String problem = k.validator().apply(v);
    if (problem != null) {
      problems.add(
          k.secret() ? fullName + ": " + problem : fullName + " = '" + v + "': " + problem);
      return null;
    }
    return v;
  }

  /** The header of the reference table, as Markdown. */
  public static String tableHeader() {
    return "| key | type | default | meaning |\n|---|---|---|---|\n";
  }

  /**
   * The reference table's rows of every key, as Markdown, one line each.
   *
   * @param namePrefix put before each key's name, e.g. {@code shards[].}; may be empty
   */
  public String tableRows(String namePrefix) {
    StringBuilder b = new StringBuilder();
    for (ConfigKey k : keys) {
      String def =
          k.required()
              ? "required"
              : k.defaultValue().isEmpty() ? "(empty)" : "`" + k.defaultValue() + "`";
      b.append("| `")
          .append(namePrefix)
          .append(k.name())
          .append("` | ")
          .append(k.type().name().toLowerCase(Locale.ROOT))
          .append(" | ")
          .append(def)
          .append(" | ")
          .append(k.doc())
          .append(" |\n");
    }
    return b.toString();
  }

  /** The reference table of every key, as Markdown. */
  public String documentation() {
    return tableHeader() + tableRows("");
  }
}
