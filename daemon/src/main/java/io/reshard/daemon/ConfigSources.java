package io.reshard.daemon;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where configuration text comes from: a YAML file flattened to dotted keys, {@code key=value}
 * overrides, and the {@code ${env:NAME}} / {@code ${file:PATH}} references a secret may use.
 * Stateless.
 *
 * <p>Flattening: nested mappings join their keys with dots ({@code admin: {port: 1}} is {@code
 * admin.port}), so dotted and nested spellings mean the same; the list under {@code shards} becomes
 * {@code shards.0.host}, {@code shards.1.host}, ...; a list anywhere else, and a mapping where a
 * list of shards is expected, is a problem. A null value counts as absent.
 */
final class ConfigSources {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Pattern REFERENCE = Pattern.compile("\\$\\{(env|file):([^}]+)}");

  private ConfigSources() {}

  /**
   * Reads {@code file} and hands every flattened {@code key, value} to {@code sink}; a file that
   * cannot be read or parsed, and every shape problem, goes to {@code problems}.
   */
  static void readYaml(Path file, BiConsumer<String, String> sink, Consumer<String> problems) {
    Object root;
    try {
      root = YAML.readValue(Files.readString(file, StandardCharsets.UTF_8), Object.class);
    } catch (NoSuchFileException e) {
      problems.accept(file + ": no such file");
      return;
    } catch (IOException e) {
      problems.accept(file + ": not readable YAML: " + firstLine(e.getMessage()));
      return;
    }
    if (root == null) {
      return; // an empty file: every key at its default
    }
    if (!(root instanceof Map<?, ?> map)) {
      problems.accept(file + ": must be a YAML mapping of keys to values");
      return;
    }
    flatten("", map, sink, problems);
  }

  private static void flatten(
      String prefix, Map<?, ?> map, BiConsumer<String, String> sink, Consumer<String> problems) {
    for (Map.Entry<?, ?> e : map.entrySet()) {
      String key = prefix + e.getKey();
      Object v = e.getValue();
      if (v == null) {
        continue;
      }
      if (v instanceof Map<?, ?> m) {
        if (key.equals(DaemonConfig.SHARDS)) {
          problems.accept(key + ": must be a list of shards (- keyspace: ..., shard: ...)");
        } else {
          flatten(key + ".", m, sink, problems);
        }
      } else if (v instanceof List<?> list) {
        if (!key.equals(DaemonConfig.SHARDS)) {
          problems.accept(key + ": a list is not allowed here (quote shard names such as '-')");
          continue;
        }
        for (int i = 0; i < list.size(); i++) {
          if (list.get(i) instanceof Map<?, ?> shard) {
            flatten(key + "." + i + ".", shard, sink, problems);
          } else {
            problems.accept(key + "." + i + ": must be a mapping (keyspace: ..., shard: ...)");
          }
        }
      } else {
        sink.accept(key, v.toString());
      }
    }
  }

  /**
   * Splits {@code key=value}.
   *
   * @return the key and the value, or null if there is no {@code =} or the key is empty
   */
  static String[] splitAssignment(String assignment) {
    int eq = assignment.indexOf('=');
    if (eq <= 0) {
      return null;
    }
    return new String[] {assignment.substring(0, eq).strip(), assignment.substring(eq + 1)};
  }

  /**
   * Resolves a secret's {@code ${env:NAME}} or {@code ${file:PATH}} reference (a file's trailing
   * line break is dropped); other text is returned as it is.
   *
   * @param env the environment (injected so tests need not set real variables)
   * @return the value, or null with a problem reported if the reference cannot be resolved
   */
  static String resolveSecret(
      String key, String text, Function<String, String> env, Consumer<String> problems) {
    Matcher m = REFERENCE.matcher(text.strip());
    if (!m.matches()) {
      return text;
    }
    String source = m.group(2).strip();
    if (m.group(1).equals("env")) {
      String v = env.apply(source);
      if (v == null) {
        problems.accept(key + ": the environment variable " + source + " is not set");
      }
      return v;
    }
    try {
      return Files.readString(Path.of(source), StandardCharsets.UTF_8).replaceAll("\\R$", "");
    } catch (IOException e) {
      problems.accept(key + ": cannot read the file " + source + " (" + e + ")");
      return null;
    }
  }

  private static String firstLine(String s) {
    return s == null ? "" : s.lines().findFirst().orElse("");
  }
}
