package io.reshard.cdc.capture;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A read position over one binlog event's body: little-endian integers, MySQL packed
 * (length-encoded) integers, big-endian integers for temporal and decimal cells. Not thread-safe.
 */
final class ByteCursor {
  private final byte[] data;
  private int pos;

  ByteCursor(byte[] data) {
    this.data = data;
  }

  int position() {
    return pos;
  }

  int remaining() {
    return data.length - pos;
  }

  boolean hasRemaining() {
    return pos < data.length;
  }

  int u8() {
    need(1);
    return data[pos++] & 0xFF;
  }

  /** An unsigned little-endian integer of {@code n} bytes (n at most 8). */
  long le(int n) {
    need(n);
    long v = 0;
    for (int i = 0; i < n; i++) {
      v |= (long) (data[pos + i] & 0xFF) << (8 * i);
    }
    pos += n;
    return v;
  }

  /** An unsigned big-endian integer of {@code n} bytes (n at most 8). */
  long be(int n) {
    need(n);
    long v = 0;
    for (int i = 0; i < n; i++) {
      v = (v << 8) | (data[pos + i] & 0xFF);
    }
    pos += n;
    return v;
  }

  /** A MySQL length-encoded integer: 1, 3, 4 or 9 bytes. */
  long packed() {
    int first = u8();
    return switch (first) {
      case 0xFC -> le(2);
      case 0xFD -> le(3);
      case 0xFE -> le(8);
      default -> {
        if (first == 0xFB || first == 0xFF) {
          throw new IllegalStateException("unexpected packed integer prefix " + first);
        }
        yield first;
      }
    };
  }

  int packedInt() {
    long v = packed();
    if (v > Integer.MAX_VALUE) {
      throw new IllegalStateException("packed integer " + v + " too large");
    }
    return (int) v;
  }

  byte[] bytes(int n) {
    need(n);
    byte[] out = Arrays.copyOfRange(data, pos, pos + n);
    pos += n;
    return out;
  }

  /** A length-prefixed (packed) byte string. */
  byte[] packedBytes() {
    return bytes(packedInt());
  }

  /** A length-prefixed (packed) UTF-8 string: identifiers are utf8 in the binlog. */
  String packedUtf8() {
    return new String(packedBytes(), StandardCharsets.UTF_8);
  }

  void skip(int n) {
    need(n);
    pos += n;
  }

  private void need(int n) {
    if (n < 0 || pos + n > data.length) {
      throw new IllegalStateException(
          "event body too short: need " + n + " bytes at " + pos + " of " + data.length);
    }
  }
}
