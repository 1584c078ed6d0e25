package io.reshard.daemon;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Copies everything written to {@code System.err} (where slf4j-simple writes every log line, looked
 * up per line) into a buffer while installed, so a test can search the log. Thread-safe.
 */
final class CapturedStderr implements AutoCloseable {
  private final PrintStream original = System.err;
  private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();

  private CapturedStderr() {
    System.setErr(
        new PrintStream(
            new OutputStream() {
              @Override
              public void write(int b) {
                synchronized (buffer) {
                  buffer.write(b);
                }
                original.write(b);
              }

              @Override
              public void write(byte[] b, int off, int len) {
                synchronized (buffer) {
                  buffer.write(b, off, len);
                }
                original.write(b, off, len);
              }
            },
            true,
            StandardCharsets.UTF_8));
  }

  /** Starts capturing. */
  static CapturedStderr start() {
    return new CapturedStderr();
  }

  /** Everything written so far. */
  String text() {
    synchronized (buffer) {
      return buffer.toString(StandardCharsets.UTF_8);
    }
  }

  @Override
  public void close() {
    System.setErr(original);
  }
}
