package io.reshard.router;

/**
 * A write was refused by a shard's fence row (DESIGN 4.3): the row's epoch differs from the epoch
 * the router's shard map gives the shard, or the shard is fenced ({@code writable = 0}) while its
 * write ownership is being switched. The transaction was rolled back; nothing it wrote committed.
 * The router waits for a newer shard map and retries on the new owner.
 */
public class StaleShardMapException extends RetriableReshardException {
  private static final long serialVersionUID = 1L;

  private final String keyspace;
  private final String shard;
  private final long mapVersion;
  private final long mapEpoch;
  private final long fenceEpoch;
  private final boolean writable;

  /**
   * @param keyspace the keyspace
   * @param shard the shard name
   * @param mapVersion the version of the router's shard map
   * @param mapEpoch the epoch that map gives the shard
   * @param fenceEpoch the epoch in the shard's fence row, -1 if the row is missing
   * @param writable the fence row's {@code writable} flag
   */
  public StaleShardMapException(
      String keyspace,
      String shard,
      long mapVersion,
      long mapEpoch,
      long fenceEpoch,
      boolean writable) {
    super(describe(keyspace, shard, mapVersion, mapEpoch, fenceEpoch, writable));
    this.keyspace = keyspace;
    this.shard = shard;
    this.mapVersion = mapVersion;
    this.mapEpoch = mapEpoch;
    this.fenceEpoch = fenceEpoch;
    this.writable = writable;
  }

  private static String describe(
      String keyspace,
      String shard,
      long mapVersion,
      long mapEpoch,
      long fenceEpoch,
      boolean writable) {
    String state;
    if (fenceEpoch < 0) {
      state = "has no fence row (was `keyspace init` run for it?)";
    } else if (fenceEpoch != mapEpoch) {
      state =
          "is at epoch "
              + fenceEpoch
              + " but shard map version "
              + mapVersion
              + " says "
              + mapEpoch;
    } else {
      state = "is fenced (writable = 0) at epoch " + fenceEpoch + ": its writes are being switched";
    }
    return "write refused: shard "
        + keyspace
        + "/"
        + shard
        + " "
        + state
        + "; the transaction was rolled back, refresh the shard map and retry";
  }

  /** True if the shard is fenced at the epoch the map gives it: a switch is under way. */
  public boolean isSwitching() {
    return fenceEpoch == mapEpoch && !writable;
  }

  public String keyspace() {
    return keyspace;
  }

  public String shard() {
    return shard;
  }

  public long mapVersion() {
    return mapVersion;
  }

  public long mapEpoch() {
    return mapEpoch;
  }

  /** The fence row's epoch, -1 if the row is missing. */
  public long fenceEpoch() {
    return fenceEpoch;
  }

  public boolean writable() {
    return writable;
  }
}
