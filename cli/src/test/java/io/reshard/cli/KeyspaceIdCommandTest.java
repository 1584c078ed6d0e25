package io.reshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class KeyspaceIdCommandTest {

  /** One run of the command line: exit code, standard output, standard error. */
  private record Run(int exitCode, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = ReshardCli.newCommandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int code = cli.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void printsVitessHashVectors() {
    Run r = run("keyspace-id", "--vindex", "hash", "1", "2", "3", "4");
    assertEquals(ExitCodes.OK, r.exitCode(), r.err());
    assertEquals(
        """
        1 166b40b44aba4bd6
        2 06e7ea22ce92708f
        3 4eb190c9a2fa169c
        4 d2fd8867d50d2dfe
        """,
        r.out());
    assertEquals("", r.err());
  }

  @Test
  void printsTheOtherVindexes() {
    assertEquals(
        "test1 d01ab7e4d6978f0b\ntest2 87eb11714c0a0e89\n1 d46405367612b4b7\n",
        run("keyspace-id", "--vindex", "xxhash", "test1", "test2", "1").out());
    assertEquals(
        "Test 0cbc6611f5540bd0809a388dc95a615b\n",
        run("keyspace-id", "--vindex", "binary_md5", "Test").out());
    assertEquals(
        "1 0000000000000001\n18446744073709551615 ffffffffffffffff\n",
        run("keyspace-id", "--vindex=numeric", "1", "18446744073709551615").out());
  }

  @Test
  void namesTheOwningShardAndAcceptsNegativeValuesAfterDoubleDash() {
    Run r = run("keyspace-id", "--vindex", "hash", "--shards=-40,40-80,80-c0,c0-", "--", "-1", "5");
    assertEquals(ExitCodes.OK, r.exitCode(), r.err());
    assertEquals("-1 355550b2150e2451 -40\n5 70bb023c810ca87a 40-80\n", r.out());
  }

  @Test
  void refusesAValueTheVindexCannotMapNamingIt() {
    Run r = run("keyspace-id", "--vindex", "hash", "1", "abc", "2.5");
    assertEquals(ExitCodes.USAGE, r.exitCode());
    assertEquals("", r.out(), "nothing is printed when a value is refused");
    assertTrue(
        r.err().contains("keyspace-id: vindex hash cannot map \"abc\": not a decimal integer"),
        r.err());
    assertTrue(r.err().contains("cannot map \"2.5\""), r.err());
    Run tooBig = run("keyspace-id", "--vindex", "numeric", "18446744073709551616");
    assertEquals(ExitCodes.USAGE, tooBig.exitCode());
    assertTrue(tooBig.err().contains("\"18446744073709551616\": out of range"), tooBig.err());
  }

  @Test
  void refusesShardsThatAreNotAPartition() {
    Run r = run("keyspace-id", "--vindex", "hash", "--shards=-40,80-", "1");
    assertEquals(ExitCodes.USAGE, r.exitCode());
    assertEquals("", r.out());
    assertTrue(r.err().contains("--shards: key ranges -40,80- are not a partition"), r.err());
    assertTrue(r.err().contains("gap 40-80"), r.err());
    Run bad = run("keyspace-id", "--vindex", "hash", "--shards=-4,4-", "1");
    assertEquals(ExitCodes.USAGE, bad.exitCode());
    assertTrue(bad.err().contains("invalid key range \"-4\""), bad.err());
  }

  @Test
  void refusesAnUnknownOrLookupVindex() {
    Run unknown = run("keyspace-id", "--vindex", "md5", "1");
    assertEquals(ExitCodes.USAGE, unknown.exitCode());
    assertTrue(unknown.err().contains("unknown vindex type \"md5\""), unknown.err());
    Run lookup = run("keyspace-id", "--vindex", "lookup_unique", "1");
    assertEquals(ExitCodes.USAGE, lookup.exitCode());
    assertTrue(lookup.err().contains("lookup_unique is a lookup vindex"), lookup.err());
  }

  @Test
  void needsAtLeastOneValue() {
    Run r = run("keyspace-id", "--vindex", "hash");
    assertEquals(ExitCodes.USAGE, r.exitCode(), "a missing argument is a usage error");
    assertEquals("", r.out());
    assertTrue(r.err().contains("VALUE"), r.err());
  }
}
