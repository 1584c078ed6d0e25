package io.reshard.cdc.capture;

import static io.reshard.cdc.capture.BinlogTypes.*;

import io.reshard.core.value.ValueCodec;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * Decodes DATE, TIME, DATETIME and TIMESTAMP cells into MariaDB's own text ({@link ValueCodec}):
 * zero and partly-zero dates stay as they are, negative TIMEs keep their sign, fractions keep
 * exactly the column's digits, TIMESTAMP is shown in UTC.
 *
 * <p>Formats (MySQL 5.6+, which MariaDB uses by default since 10.1): DATETIME2 is 5 bytes
 * big-endian {@code sign(1) year*13+month(17) day(5) hour(5) minute(6) second(6)} offset by 2^39;
 * TIME2 is 3 bytes {@code sign(1) unused(1) hour(10) minute(6) second(6)} offset by 2^23;
 * TIMESTAMP2 is 4 bytes of seconds since the epoch; each is followed by (fsp+1)/2 bytes of
 * fraction. DATE is 3 bytes little-endian {@code year(15) month(4) day(5)}. The pre-5.6 DATETIME,
 * TIME and TIMESTAMP (no fraction) are read too. Stateless.
 */
final class BinlogTemporals {

  private BinlogTemporals() {}

  static String decode(int type, int fsp, ByteCursor c) {
    return switch (type) {
      case DATE, NEWDATE -> {
        int v = (int) c.le(3);
        yield ValueCodec.date(v >>> 9, (v >>> 5) & 0x0F, v & 0x1F);
      }
      case DATETIME2 -> dateTime2(c, fsp);
      case TIMESTAMP2 -> timestamp(c.be(4), fraction(c, fsp), fsp);
      case TIME2 -> time2(c, fsp);
      case DATETIME -> oldDateTime(c.le(8));
      case TIMESTAMP -> timestamp(c.le(4), 0, 0);
      case TIME -> oldTime(c.le(3));
      default -> throw new IllegalStateException("not a temporal type: " + type);
    };
  }

  private static String dateTime2(ByteCursor c, int fsp) {
    long packed = c.be(5) - 0x80_0000_0000L;
    int micros = fraction(c, fsp);
    long ymd = packed >>> 17;
    long ym = ymd >>> 5;
    long hms = packed & 0x1FFFF;
    return ValueCodec.dateTime(
        (int) (ym / 13),
        (int) (ym % 13),
        (int) (ymd & 0x1F),
        (int) (hms >>> 12),
        (int) ((hms >>> 6) & 0x3F),
        (int) (hms & 0x3F),
        micros,
        fsp);
  }

  /**
   * TIME2: the integer part and the fraction form one signed number; a negative value stores its
   * fraction counted back from the next integer, so it is read as a whole and then split.
   */
  private static String time2(ByteCursor c, int fsp) {
    long packed; // (intpart << 24) + microseconds, signed
    switch (fsp) {
      case 0 -> packed = (c.be(3) - 0x80_0000L) << 24;
      case 1, 2 -> {
        long intpart = c.be(3) - 0x80_0000L;
        int frac = c.u8();
        if (intpart < 0 && frac != 0) {
          intpart++;
          frac -= 0x100;
        }
        packed = (intpart << 24) + frac * 10_000L;
      }
      case 3, 4 -> {
        long intpart = c.be(3) - 0x80_0000L;
        int frac = (int) c.be(2);
        if (intpart < 0 && frac != 0) {
          intpart++;
          frac -= 0x10000;
        }
        packed = (intpart << 24) + frac * 100L;
      }
      default -> packed = c.be(6) - 0x8000_0000_0000L;
    }
    boolean negative = packed < 0;
    long abs = Math.abs(packed);
    long hms = abs >>> 24;
    int micros = (int) (abs & 0xFF_FFFF);
    return ValueCodec.time(
        negative,
        (int) ((hms >>> 12) & 0x3FF),
        (int) ((hms >>> 6) & 0x3F),
        (int) (hms & 0x3F),
        micros,
        fsp);
  }

  private static String timestamp(long seconds, int micros, int fsp) {
    if (seconds == 0 && micros == 0) {
      return ValueCodec.dateTime(0, 0, 0, 0, 0, 0, 0, fsp); // the zero TIMESTAMP
    }
    LocalDateTime t = LocalDateTime.ofEpochSecond(seconds, 0, ZoneOffset.UTC);
    return ValueCodec.dateTime(
        t.getYear(),
        t.getMonthValue(),
        t.getDayOfMonth(),
        t.getHour(),
        t.getMinute(),
        t.getSecond(),
        micros,
        fsp);
  }

  /** The fraction after a 5.6 temporal value, in microseconds. */
  private static int fraction(ByteCursor c, int fsp) {
    return switch (fsp) {
      case 0 -> 0;
      case 1, 2 -> c.u8() * 10_000;
      case 3, 4 -> (int) c.be(2) * 100;
      default -> (int) c.be(3);
    };
  }

  private static String oldDateTime(long v) {
    long date = v / 1_000_000;
    long time = v % 1_000_000;
    return ValueCodec.dateTime(
        (int) (date / 10_000),
        (int) (date / 100 % 100),
        (int) (date % 100),
        (int) (time / 10_000),
        (int) (time / 100 % 100),
        (int) (time % 100),
        0,
        0);
  }

  private static String oldTime(long raw) {
    long v = (raw << 40) >> 40; // sign-extend 24 bits
    boolean negative = v < 0;
    long a = Math.abs(v);
    return ValueCodec.time(
        negative, (int) (a / 10_000), (int) (a / 100 % 100), (int) (a % 100), 0, 0);
  }
}
