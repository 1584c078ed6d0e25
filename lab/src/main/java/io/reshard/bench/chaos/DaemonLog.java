package io.reshard.bench.chaos;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Excerpts of the daemon's log for the report: where it ends now ({@link #end}), and the warnings
 * and errors written after such a point ({@link #warningsSince}), which say why a fault did not
 * heal. Stateless.
 */
final class DaemonLog {
  /** Lines kept per excerpt. */
  static final int LINES = 10;

  /** Characters kept per line. */
  private static final int LINE_CHARS = 400;

  private DaemonLog() {}

  /** The log's size now, in bytes (0 if it does not exist). */
  static long end(Path log) {
    try {
      return Files.exists(log) ? Files.size(log) : 0;
    } catch (IOException e) {
      return 0;
    }
  }

  /** The last {@link #LINES} WARN or ERROR lines written after byte {@code from}. */
  static List<String> warningsSince(Path log, long from) {
    List<String> kept = new ArrayList<>();
    try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "r")) {
      long size = f.length();
      if (from >= size) {
        return kept;
      }
      byte[] tail = new byte[(int) Math.min(size - from, 8L << 20)];
      f.seek(size - tail.length);
      f.readFully(tail);
      for (String line : new String(tail, StandardCharsets.UTF_8).split("\n")) {
        if (line.contains(" WARN ") || line.contains(" ERROR ")) {
          kept.add(line.length() > LINE_CHARS ? line.substring(0, LINE_CHARS) + "..." : line);
          if (kept.size() > LINES) {
            kept.remove(0);
          }
        }
      }
    } catch (IOException e) {
      kept.add("(the daemon's log cannot be read: " + e.getMessage() + ")");
    }
    return kept;
  }
}
