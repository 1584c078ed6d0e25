package io.reshard.cdc.capture;

import io.reshard.cdc.CaptureConfig;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Every limit one change record meets on its way into its change topic, each with what lifts it:
 * the producer's {@code max.request.size} and {@code buffer.memory}, the topic's {@code
 * max.message.bytes} and {@code segment.bytes}, and the broker's {@code socket.request.max.bytes}.
 * A record larger than the smallest is refused by {@link #check} before it is sent, naming every
 * limit it exceeds and the setting that lifts each, so that the advice, once followed, is enough.
 *
 * <p>Record sizes are compared uncompressed (the producer checks them so; the broker checks the
 * compressed batch, which is never larger for the payloads capture writes), so a record that passes
 * fits each limit. Immutable.
 */
final class RecordLimits {
  /**
   * How much larger than the source's {@code max_allowed_packet} the largest record capture sizes
   * itself for is: an update of a row with one value of that many bytes carries it twice (before
   * and after), base64 makes binary 4/3 as long (8/3 for both), and one more third covers the other
   * columns, the envelope and the schema header.
   */
  static final int PACKET_FACTOR = 3;

  /** The envelope and the key of a record whose row is small, on top of the sized values. */
  static final long ENVELOPE_BYTES = 1024 * 1024;

  /** What a produce request adds to its record batch (request and batch headers), generously. */
  static final long REQUEST_OVERHEAD_BYTES = 16 * 1024;

  /**
   * One limit.
   *
   * @param what the limit's name and where it is set, e.g. {@code the topic's max.message.bytes}
   * @param bytes its value
   * @param lift what to do to raise it, given the size needed
   */
  record Limit(String what, long bytes, java.util.function.LongFunction<String> lift) {}

  private final List<Limit> limits;

  RecordLimits(List<Limit> limits) {
    this.limits = List.copyOf(limits);
  }

  /**
   * The bytes capture sizes its topic and producer for when {@code topic.max.message.bytes} is 0:
   * {@link #PACKET_FACTOR} times the source's {@code max_allowed_packet}, plus {@link
   * #ENVELOPE_BYTES}, at most {@link Integer#MAX_VALUE}.
   */
  static int sizedRecordBytes(long maxAllowedPacket) {
    return (int) Math.min(Integer.MAX_VALUE, PACKET_FACTOR * maxAllowedPacket + ENVELOPE_BYTES);
  }

  /**
   * The limits of capture into an existing (or just created) change topic.
   *
   * @param config the capture's configuration (names the topic and the keys)
   * @param maxRequestBytes the producer's {@code max.request.size}
   * @param bufferMemoryBytes the producer's {@code buffer.memory}
   * @param topic the topic's own limits and the broker's, as read from Kafka
   */
  static RecordLimits of(
      CaptureConfig config,
      long maxRequestBytes,
      long bufferMemoryBytes,
      KafkaTopics.Limits topic) {
    String t = config.changeTopic();
    String alter =
        "kafka-configs.sh --bootstrap-server "
            + config.bootstrapServers()
            + " --entity-type topics --entity-name "
            + t
            + " --alter --add-config ";
    List<Limit> l = new ArrayList<>();
    l.add(
        new Limit(
            "the producer's max.request.size",
            maxRequestBytes,
            n ->
                "set the capture key "
                    + CaptureConfig.PRODUCER_PREFIX
                    + "max.request.size="
                    + n
                    + " (in the daemon capture."
                    + CaptureConfig.PRODUCER_PREFIX
                    + "max.request.size), or leave it unset: it follows the topic"));
    l.add(
        new Limit(
            "the producer's buffer.memory",
            bufferMemoryBytes,
            n ->
                "set the capture key "
                    + CaptureConfig.PRODUCER_PREFIX
                    + "buffer.memory="
                    + n
                    + " (in the daemon capture."
                    + CaptureConfig.PRODUCER_PREFIX
                    + "buffer.memory), or leave it unset: it follows max.request.size"));
    l.add(
        new Limit(
            "topic " + t + "'s max.message.bytes",
            topic.maxMessageBytes(),
            n -> "raise it: " + alter + "max.message.bytes=" + n));
    l.add(
        new Limit(
            "topic " + t + "'s segment.bytes",
            topic.segmentBytes(),
            n -> "raise it: " + alter + "segment.bytes=" + n));
    l.add(
        new Limit(
            "the broker's socket.request.max.bytes (less "
                + REQUEST_OVERHEAD_BYTES
                + " bytes of request headers)",
            topic.socketRequestMaxBytes() - REQUEST_OVERHEAD_BYTES,
            n ->
                "raise socket.request.max.bytes to at least "
                    + (n + REQUEST_OVERHEAD_BYTES)
                    + " in every broker's server.properties and restart the brokers"));
    return new RecordLimits(l);
  }

  /** The largest record that fits every limit (bytes). */
  long maxRecordBytes() {
    return limits.stream().mapToLong(Limit::bytes).min().orElse(Long.MAX_VALUE);
  }

  /** The limits, smallest first. */
  List<Limit> limits() {
    return limits.stream().sorted(Comparator.comparingLong(Limit::bytes)).toList();
  }

  /**
   * What stops a record of {@code sizeBytes}, and how to lift each limit it exceeds; empty if it
   * fits.
   */
  String exceeded(long sizeBytes) {
    StringBuilder b = new StringBuilder();
    for (Limit l : limits()) {
      if (l.bytes() < sizeBytes) {
        b.append(b.length() == 0 ? "" : "; ")
            .append(l.what())
            .append(" is ")
            .append(l.bytes())
            .append(": ")
            .append(l.lift().apply(sizeBytes));
      }
    }
    return b.toString();
  }

  /** Every limit and its value, for the start-up log and error messages. */
  String describe() {
    StringBuilder b = new StringBuilder();
    for (Limit l : limits()) {
      b.append(b.length() == 0 ? "" : ", ").append(l.what()).append(" ").append(l.bytes());
    }
    return b.toString();
  }
}
