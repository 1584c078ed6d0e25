package io.reshard.copier;

import io.reshard.core.placement.SplitFixture;
import io.reshard.router.VSchema;
import java.util.List;

/** Copy specs over the split fixture's servers, for the copier's tests and the system tests. */
public final class CopySpecs {
  private CopySpecs() {}

  /** The copy spec of {@code tables} from the fixture's source (db4) to its targets (db5, db6). */
  public static CopySpec split(
      SplitFixture fx, String workflow, VSchema vschema, String... tables) {
    return new CopySpec(
        workflow,
        fx.cluster.database(),
        SplitFixture.endpoint(fx.source),
        SplitFixture.SOURCE_RANGE,
        fx.targetShards(),
        List.of(tables),
        vschema,
        "4-4-1");
  }
}
