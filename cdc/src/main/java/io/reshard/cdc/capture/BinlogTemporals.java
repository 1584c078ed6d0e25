package io.reshard.cdc.capture;

import static io.reshard.cdc.capture.BinlogTypes.*;

import io.reshard.core.value.ValueCodec;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * Decodes DATE, TIME, DATETIME and TIMESTAMP cells into MariaDB's own text ({@link ValueCodec}):
 * zero and partly-zero dates stay as they are, negative TIMEs keep their sign, fractions keep
 * exactly the column's digits, TIMESTAMP is shown in UTC. A cell whose parts are out of the type's
 * range (a month of 13, a TIME of 900 hours) is refused with an exception rather than printed: it
 * can only come from reading the cell in a wrong layout.
 *
 * <p>Formats (MySQL 5.6+, which MariaDB uses by default since 10.1): DATETIME2 is 5 bytes
 * big-endian {@code sign(1) year*13+month(17) day(5) hour(5) minute(6) second(6)} offset by 2^39;
 * TIME2 is 3 bytes {@code sign(1) unused(1) hour(10) minute(6) second(6)} offset by 2^23;
 * TIMESTAMP2 is 4 bytes of seconds since the epoch; each is followed by (fsp+1)/2 bytes of
 * fraction. DATE is 3 bytes little-endian {@code year(15) month(4) day(5)}.
 *
 * <p>The old type codes DATETIME (12), TIME (11) and TIMESTAMP (7) carry two layouts, told apart
 * only by the column's precision (MariaDB's {@code sql/field.cc}, {@code sql/sql_type.cc}):
 *
 * <ul>
 *   <li>precision 0, the pre-5.6 layout of MySQL 5.5 and MariaDB: DATETIME 8 bytes little-endian of
 *       the number YYYYMMDDhhmmss; TIME 3 bytes little-endian signed of ±hhhmmss; TIMESTAMP 4 bytes
 *       little-endian of seconds since the epoch.
 *   <li>precision n of 1-6, MariaDB 5.3's "hires" layout ({@code Field_*_hires}): DATETIME is
 *       {@code pack_time / 10^(6-n)} big-endian in 6, 6, 7, 7, 7, 8 bytes, where {@code pack_time =
 *       ((((((year*13 + month)*32 + day)*24 + hour)*60 + minute)*60 + second)*10^6 + micros}; TIME
 *       is {@code ±pack_time / 10^(6-n)} plus {@code 3020400 * 10^n} (the zero point, 838:59:59
 *       plus one second) big-endian in 4, 4, 5, 5, 5, 6 bytes; TIMESTAMP is 4 bytes big-endian of
 *       seconds and then {@code micros / 10^(6-n)} big-endian in 1, 1, 2, 2, 3, 3 bytes.
 * </ul>
 *
 * The TABLE_MAP has no metadata for the old codes, so the precision is the column's {@code
 * DATETIME_PRECISION}; {@link SchemaCache} supplies it. Stateless.
 */
final class BinlogTemporals {

  private static final long[] POW10 = {1, 10, 100, 1_000, 10_000, 100_000, 1_000_000};

  /** Bytes of a hires DATETIME(n) ({@code Type_handler_datetime::m_hires_bytes}). */
  private static final int[] DATETIME_HIRES_BYTES = {5, 6, 6, 7, 7, 7, 8};

  /** Bytes of a hires TIME(n) ({@code Type_handler_time::m_hires_bytes}). */
  private static final int[] TIME_HIRES_BYTES = {3, 4, 4, 5, 5, 5, 6};

  /** Fraction bytes of a hires TIMESTAMP(n) ({@code Type_handler_timestamp::m_sec_part_bytes}). */
  private static final int[] TIMESTAMP_HIRES_FRACTION_BYTES = {0, 1, 1, 2, 2, 3, 3};

  /** TIME's largest whole value, 838:59:59, in seconds ({@code TIME_MAX_VALUE_SECONDS}). */
  private static final long TIME_MAX_SECONDS = 838L * 3600 + 59 * 60 + 59;

  private BinlogTemporals() {}

  /**
   * The cell's text.
   *
   * @param fsp the column's fraction digits: the metadata of the 5.6 types, the schema's precision
   *     for the old codes
   * @throws IllegalStateException if the cell is not a value of its type (read in a wrong layout),
   *     or an old code's precision is still unknown
   */
  static String decode(int type, int fsp, ByteCursor c) {
    if (fsp < 0 || fsp > 6) {
      throw new IllegalStateException(
          fsp == FSP_FROM_SCHEMA
              ? "the precision of this old-format " + temporalName(type) + " column is unknown"
              : temporalName(type) + " with " + fsp + " fraction digits");
    }
    return switch (type) {
      case DATE, NEWDATE -> {
        int v = (int) c.le(3);
        int month = (v >>> 5) & 0x0F;
        int day = v & 0x1F;
        check(month <= 12, "DATE", v);
        yield ValueCodec.date(v >>> 9, month, day);
      }
      case DATETIME2 -> dateTime2(c, fsp);
      case TIMESTAMP2 -> timestamp(c.be(4), fraction(c, fsp), fsp);
      case TIME2 -> time2(c, fsp);
      case DATETIME -> fsp == 0 ? oldDateTime(c.le(8)) : dateTimeHires(c, fsp);
      case TIMESTAMP -> fsp == 0 ? timestamp(c.le(4), 0, 0) : timestampHires(c, fsp);
      case TIME -> fsp == 0 ? oldTime(c.le(3)) : timeHires(c, fsp);
      default -> throw new IllegalStateException("not a temporal type: " + type);
    };
  }

  /** The bytes of an old-code cell of precision {@code fsp} (for tests and messages). */
  static int oldFormatLength(int type, int fsp) {
    return switch (type) {
      case DATETIME -> fsp == 0 ? 8 : DATETIME_HIRES_BYTES[fsp];
      case TIME -> TIME_HIRES_BYTES[fsp];
      case TIMESTAMP -> 4 + TIMESTAMP_HIRES_FRACTION_BYTES[fsp];
      default -> throw new IllegalArgumentException("not an old temporal type: " + type);
    };
  }

  private static String dateTime2(ByteCursor c, int fsp) {
    long packed = c.be(5) - 0x80_0000_0000L;
    int micros = fraction(c, fsp);
    long ymd = packed >>> 17;
    long ym = ymd >>> 5;
    long hms = packed & 0x1FFFF;
    return dateTime(
        (int) (ym / 13),
        (int) (ym % 13),
        (int) (ymd & 0x1F),
        (int) (hms >>> 12),
        (int) ((hms >>> 6) & 0x3F),
        (int) (hms & 0x3F),
        micros,
        fsp,
        packed);
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
    return time(
        negative,
        (hms >>> 12) & 0x3FF,
        (int) ((hms >>> 6) & 0x3F),
        (int) (hms & 0x3F),
        micros,
        fsp,
        packed);
  }

  /** MariaDB 5.3's DATETIME(1..6): {@code pack_time} without its last 6-n digits, big-endian. */
  private static String dateTimeHires(ByteCursor c, int fsp) {
    long stored = c.be(DATETIME_HIRES_BYTES[fsp]);
    check(stored >= 0 && stored <= Long.MAX_VALUE / POW10[6 - fsp], "DATETIME", stored);
    long packed = stored * POW10[6 - fsp];
    int micros = (int) (packed % 1_000_000);
    packed /= 1_000_000;
    int second = (int) (packed % 60);
    packed /= 60;
    int minute = (int) (packed % 60);
    packed /= 60;
    int hour = (int) (packed % 24);
    packed /= 24;
    int day = (int) (packed % 32);
    packed /= 32;
    int month = (int) (packed % 13);
    long year = packed / 13;
    check(year <= 9999, "DATETIME", stored);
    return dateTime((int) year, month, day, hour, minute, second, micros, fsp, stored);
  }

  /** MariaDB 5.3's TIME(1..6): {@code ±pack_time} shifted, plus the zero point, big-endian. */
  private static String timeHires(ByteCursor c, int fsp) {
    long stored = c.be(TIME_HIRES_BYTES[fsp]);
    long packed = (stored - (TIME_MAX_SECONDS + 1) * POW10[fsp]) * POW10[6 - fsp];
    boolean negative = packed < 0;
    long a = Math.abs(packed);
    int micros = (int) (a % 1_000_000);
    a /= 1_000_000;
    int second = (int) (a % 60);
    a /= 60;
    int minute = (int) (a % 60);
    a /= 60;
    // unpack_time splits the rest into hour % 24, day % 32, month % 13 and adds them back up
    return time(negative, a, minute, second, micros, fsp, stored);
  }

  /** MariaDB 5.3's TIMESTAMP(1..6): seconds big-endian, then the shifted fraction big-endian. */
  private static String timestampHires(ByteCursor c, int fsp) {
    long seconds = c.be(4);
    long fraction = c.be(TIMESTAMP_HIRES_FRACTION_BYTES[fsp]);
    check(fraction < POW10[fsp], "TIMESTAMP", fraction);
    return timestamp(seconds, (int) (fraction * POW10[6 - fsp]), fsp);
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
    int micros =
        switch (fsp) {
          case 0 -> 0;
          case 1, 2 -> c.u8() * 10_000;
          case 3, 4 -> (int) c.be(2) * 100;
          default -> (int) c.be(3);
        };
    check(micros <= 999_999, "fraction", micros);
    return micros;
  }

  private static String oldDateTime(long v) {
    check(v >= 0 && v <= 99_991_231_235_959L, "DATETIME", v);
    long date = v / 1_000_000;
    long time = v % 1_000_000;
    return dateTime(
        (int) (date / 10_000),
        (int) (date / 100 % 100),
        (int) (date % 100),
        (int) (time / 10_000),
        (int) (time / 100 % 100),
        (int) (time % 100),
        0,
        0,
        v);
  }

  private static String oldTime(long raw) {
    long v = (raw << 40) >> 40; // sign-extend 24 bits
    boolean negative = v < 0;
    long a = Math.abs(v);
    return time(negative, a / 10_000, (int) (a / 100 % 100), (int) (a % 100), 0, 0, raw);
  }

  /** A DATETIME's text after checking each part's range ({@code stored} names it otherwise). */
  private static String dateTime(
      int year,
      int month,
      int day,
      int hour,
      int minute,
      int second,
      int micros,
      int fsp,
      long stored) {
    check(
        year <= 9999 && month <= 12 && day <= 31 && hour <= 23 && minute <= 59 && second <= 59,
        "DATETIME",
        stored);
    return ValueCodec.dateTime(year, month, day, hour, minute, second, micros, fsp);
  }

  /** A TIME's text after checking that it lies within ±838:59:59.999999. */
  private static String time(
      boolean negative, long hours, int minute, int second, int micros, int fsp, long stored) {
    check(
        minute <= 59 && second <= 59 && hours * 3600 + minute * 60 + second <= TIME_MAX_SECONDS,
        "TIME",
        stored);
    return ValueCodec.time(negative, (int) hours, minute, second, micros, fsp);
  }

  private static void check(boolean valid, String type, long stored) {
    if (!valid) {
      throw new IllegalStateException(
          "stored " + type + " value 0x" + Long.toHexString(stored) + " is not a valid value");
    }
  }
}
