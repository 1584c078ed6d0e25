package io.reshard.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Every exit code is in {@code --help} and in the README's exit-code lines, and only those. */
class ExitCodesTest {
  /** The module's directory is the working directory of its tests. */
  private static final Path README = Path.of("..", "README.md");

  private static List<Integer> codes() throws IllegalAccessException {
    List<Integer> codes = new ArrayList<>();
    for (Field f : ExitCodes.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class) {
        codes.add(f.getInt(null));
      }
    }
    return codes;
  }

  @Test
  void helpAndReadmeNameEveryExitCode() throws Exception {
    String readme = Files.readString(README, StandardCharsets.UTF_8);
    int at = readme.indexOf("## Exit codes");
    assertTrue(at >= 0, "README has an exit codes section");
    String section = readme.substring(at, readme.indexOf("\n## ", at + 1));
    List<Integer> codes = codes();
    assertTrue(codes.contains(ExitCodes.INTERRUPTED), codes.toString());
    for (int code : codes) {
      assertTrue(
          Pattern.compile("(?m)^\\s*" + code + "  \\S").matcher(ExitCodes.HELP_TEXT).find(),
          code + " in --help:\n" + ExitCodes.HELP_TEXT);
      assertTrue(section.contains("`" + code + "`"), code + " in the README:\n" + section);
    }
    for (int undocumented : List.of(7, 127)) {
      assertFalse(section.contains("`" + undocumented + "`"), section);
    }
  }
}
