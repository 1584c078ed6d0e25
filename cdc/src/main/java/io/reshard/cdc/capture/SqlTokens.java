package io.reshard.cdc.capture;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits the start of a SQL statement into words, unquoted identifiers ({@code `a``b`} gives {@code
 * a`b}), string literals (without quotes) and single punctuation characters, skipping whitespace
 * and comments. Stateless.
 */
final class SqlTokens {

  private SqlTokens() {}

  /** The first {@code max} tokens of {@code sql}. */
  static List<String> tokenize(String sql, int max) {
    List<String> out = new ArrayList<>();
    int i = 0;
    int n = sql.length();
    while (i < n && out.size() < max) {
      char ch = sql.charAt(i);
      if (Character.isWhitespace(ch)) {
        i++;
      } else if (sql.startsWith("/*!", i) || sql.startsWith("/*M!", i)) {
        i += sql.startsWith("/*M!", i) ? 4 : 3; // versioned comment: its body is SQL
        while (i < n && Character.isDigit(sql.charAt(i))) {
          i++;
        }
      } else if (sql.startsWith("*/", i)) {
        i += 2;
      } else if (sql.startsWith("/*", i)) {
        int end = sql.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
      } else if (sql.startsWith("--", i) || ch == '#') {
        int end = sql.indexOf('\n', i);
        i = end < 0 ? n : end + 1;
      } else if (ch == '`' || ch == '"' || ch == '\'') {
        StringBuilder b = new StringBuilder();
        i = quoted(sql, i, ch, b);
        out.add(b.toString());
      } else if (Character.isLetterOrDigit(ch) || ch == '_' || ch == '$') {
        int start = i;
        while (i < n
            && (Character.isLetterOrDigit(sql.charAt(i))
                || sql.charAt(i) == '_'
                || sql.charAt(i) == '$')) {
          i++;
        }
        out.add(sql.substring(start, i));
      } else {
        out.add(String.valueOf(ch));
        i++;
      }
    }
    return out;
  }

  /** Reads a quoted token starting at {@code i}; a doubled quote is one quote character. */
  private static int quoted(String sql, int i, char quote, StringBuilder into) {
    i++;
    while (i < sql.length()) {
      char ch = sql.charAt(i);
      if (ch == quote && i + 1 < sql.length() && sql.charAt(i + 1) == quote) {
        into.append(quote);
        i += 2;
      } else if (ch == quote) {
        return i + 1;
      } else if (ch == '\\' && quote != '`' && i + 1 < sql.length()) {
        into.append(sql.charAt(i + 1));
        i += 2;
      } else {
        into.append(ch);
        i++;
      }
    }
    return i;
  }
}
