package io.reshard.switcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.router.KeyRange;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The rule for a workflow's ranges, one reason per target that breaks it on its own. */
class TargetRangesTest {

  private static List<String> problems(String source, String... targets) {
    return TargetRanges.problems(
        List.of(KeyRange.parse(source)), Arrays.stream(targets).map(KeyRange::parse).toList());
  }

  @Test
  void targetsThatDivideTheSourceExactlyPass() {
    assertEquals(List.of(), problems("80-", "80-c0", "c0-"));
    assertEquals(List.of(), problems("-", "-40", "40-80", "80-"));
    assertEquals(List.of(), problems("c0-", "c0-e0", "e0-"));
  }

  @Test
  void aTargetEqualToTheSourceIsNamedWithWhatToDo() {
    assertEquals(
        List.of(
            "target 80- is the range of source 80- itself: a shard map cannot hold two shards of"
                + " one range; give targets that divide 80- (e.g. --targets=80-c0,c0-)"),
        problems("80-", "80-"));
    assertEquals(
        List.of(
            "target 80-c000 is the range of source 80-c0 itself: a shard map cannot hold two shards"
                + " of one range; give targets that divide 80-c0 (e.g. --targets=80-a0,a0-c0)"),
        problems("80-c0", "80-C000"),
        "the same range spelt otherwise is the same range");
  }

  @Test
  void eachTargetOutsideTheSourceHasAReasonOfItsOwn() {
    assertEquals(
        List.of(
            "target 40-c0 is not inside the source's range 80-: every target must lie within it",
            "target -40 is not inside the source's range 80-: every target must lie within it"),
        problems("80-", "40-c0", "c0-", "-40"));
  }

  @Test
  void targetsInsideButNotCoveringOrOverlappingAreOneReason() {
    List<String> gap = problems("c0-", "c0-e0", "f0-");
    assertEquals(1, gap.size(), gap.toString());
    assertTrue(gap.get(0).contains("do not form one contiguous range covering c0-"), gap.get(0));
    assertTrue(gap.get(0).contains("gap"), gap.get(0));
    List<String> overlap = problems("c0-", "c0-f0", "e0-");
    assertTrue(overlap.get(0).contains("overlap"), overlap.get(0));
    assertEquals(
        List.of("the targets [c0-e0, e0-f0] cover c0-f0, not c0-"),
        problems("c0-", "c0-e0", "e0-f0"));
  }
}
