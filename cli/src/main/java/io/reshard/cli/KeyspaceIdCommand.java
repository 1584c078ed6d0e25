package io.reshard.cli;

import io.reshard.router.KeyRangePartition;
import io.reshard.router.KeyspaceId;
import io.reshard.router.UnmappableValueException;
import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code reshard keyspace-id --vindex TYPE [--shards=RANGES] [--] VALUE...}: prints the keyspace id
 * of each value under a functional vindex and, with {@code --shards}, the shard that owns it.
 *
 * <p>Output, one line per value, in argument order: {@code VALUE KSID [SHARD]}, with the ksid in
 * bare lower-case hex. Every value is a string handed to {@link Vindex#keyspaceId}: {@code hash}
 * and {@code numeric} read it as a decimal integer, signed 64-bit or unsigned up to 2^64-1 (a
 * negative value as its two's complement, as Vitess does); {@code xxhash} and {@code binary_md5}
 * hash its UTF-8 bytes, so an integer-looking argument hashes its decimal text, which is what
 * Vitess hashes for an integer column.
 *
 * <p>Exit codes: {@link ExitCodes#OK}; {@link ExitCodes#USAGE} for an unknown or lookup vindex
 * type, {@code --shards} names that are invalid or do not partition the keyspace (an {@link
 * IllegalArgumentException}, which {@link ErrorHandler} maps to USAGE), or any value the vindex
 * cannot map: the value came from the command line, so it is a usage error rather than a refusal. A
 * bad value prints nothing on standard output: each bad value is named on standard error, all of
 * them at once.
 */
@Command(
    name = "keyspace-id",
    mixinStandardHelpOptions = true,
    description = {
      "Print the keyspace id of each VALUE under a Vitess vindex, and with --shards its shard.",
      "Output: one line per value, 'VALUE KSID [SHARD]', the ksid in lower-case hex.",
      "hash and numeric read VALUE as a decimal integer (signed 64-bit, or unsigned up to"
          + " 2^64-1); xxhash and binary_md5 hash the UTF-8 bytes of VALUE (an integer's decimal"
          + " text, as Vitess does). Put negative values after --."
    },
    footer = {
      "",
      "Exit codes: 0 ok; 2 usage error: a bad option, or a VALUE the vindex cannot map (each is"
          + " named on stderr and nothing is printed on stdout)."
    })
final class KeyspaceIdCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--vindex",
      required = true,
      paramLabel = "TYPE",
      description = "Vindex type: hash, xxhash, binary_md5 or numeric.")
  String vindex;

  @Option(
      names = "--shards",
      paramLabel = "RANGES",
      description =
          "Comma-separated shard names that partition the keyspace, e.g. -40,40-80,80-c0,c0-;"
              + " prints the shard owning each value.")
  String shards;

  @Parameters(arity = "1..*", paramLabel = "VALUE", description = "Column values to map.")
  List<String> values;

  @Override
  public Integer call() {
    Vindex function = vindex();
    KeyRangePartition partition = partition();
    List<String> lines = new ArrayList<>();
    List<String> refused = new ArrayList<>();
    for (String value : values) {
      try {
        KeyspaceId ksid = function.keyspaceId(value);
        lines.add(
            value
                + " "
                + ksid.hex()
                + (partition == null ? "" : " " + partition.rangeFor(ksid).name()));
      } catch (UnmappableValueException e) {
        refused.add(e.getMessage());
      }
    }
    if (!refused.isEmpty()) {
      PrintWriter err = spec.commandLine().getErr();
      refused.forEach(m -> err.println(spec.name() + ": " + m));
      err.flush();
      return ExitCodes.USAGE;
    }
    PrintWriter out = spec.commandLine().getOut();
    lines.forEach(out::println);
    out.flush();
    return ExitCodes.OK;
  }

  private Vindex vindex() {
    VindexType type;
    try {
      type = VindexType.fromVitessName(vindex);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--vindex: " + e.getMessage(), e);
    }
    if (!type.isFunctional()) {
      throw new IllegalArgumentException(
          "--vindex: "
              + type
              + " is a lookup vindex, which needs its lookup table; use hash, xxhash, binary_md5"
              + " or numeric");
    }
    return Vindex.of(type);
  }

  private KeyRangePartition partition() {
    if (shards == null) {
      return null;
    }
    try {
      return KeyRangePartition.parse(shards);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--shards: " + e.getMessage(), e);
    }
  }
}
