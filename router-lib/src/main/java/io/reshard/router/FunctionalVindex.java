package io.reshard.router;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import net.jpountz.xxhash.XXHash64;
import net.jpountz.xxhash.XXHashFactory;

/**
 * The four functional vindexes; see {@link Vindex} for what each computes and accepts. Each
 * constant cites the Vitess function it reproduces. Thread-safe. {@code hash} computes its DES
 * block with {@link ZeroKeyDes}, not the JRE's cipher.
 */
enum FunctionalVindex implements Vindex {
  /** Vitess {@code go/vt/vtgate/vindexes/hash.go}, {@code vhash}. */
  HASH(VindexType.HASH) {
    @Override
    public KeyspaceId keyspaceId(Object value) {
      return KeyspaceId.ofUint64(ZeroKeyDes.encrypt(VindexValues.toUint64(type(), value)));
    }
  },

  /** Vitess {@code go/vt/vtgate/vindexes/xxhash.go}, {@code vXXHash}. */
  XXHASH(VindexType.XXHASH) {
    @Override
    public KeyspaceId keyspaceId(Object value) {
      byte[] b = VindexValues.toBytes(type(), value);
      long h = XXH64.hash(b, 0, b.length, XXH64_SEED);
      return KeyspaceId.of(KeyspaceId.uint64Bytes(Long.reverseBytes(h))); // little-endian
    }
  },

  /** Vitess {@code go/vt/vtgate/vindexes/binarymd5.go}, {@code binHash}. */
  BINARY_MD5(VindexType.BINARY_MD5) {
    @Override
    public KeyspaceId keyspaceId(Object value) {
      byte[] b = VindexValues.toBytes(type(), value);
      try {
        return KeyspaceId.of(MessageDigest.getInstance("MD5").digest(b));
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("this JRE has no MD5, which every JRE must provide", e);
      }
    }
  },

  /** Vitess {@code go/vt/vtgate/vindexes/numeric.go}: the value's bit pattern. */
  NUMERIC(VindexType.NUMERIC) {
    @Override
    public KeyspaceId keyspaceId(Object value) {
      return KeyspaceId.ofUint64(VindexValues.toUint64(type(), value));
    }
  };

  /** Vitess's {@code xxhash.Sum64} uses seed 0. */
  private static final long XXH64_SEED = 0L;

  /**
   * lz4-java's pure-Java xxh64: no native code or {@code Unsafe}, identical results to the native
   * one; stateless and thread-safe.
   */
  private static final XXHash64 XXH64 = XXHashFactory.safeInstance().hash64();

  private final VindexType type;

  FunctionalVindex(VindexType type) {
    this.type = type;
  }

  @Override
  public VindexType type() {
    return type;
  }

  /** The vindex of a functional type; see {@link Vindex#of}. */
  static Vindex of(VindexType type) {
    for (FunctionalVindex v : values()) {
      if (v.type == type) {
        return v;
      }
    }
    throw new IllegalArgumentException(
        "vindex type "
            + type
            + " maps through a lookup table, not by computation: describe it with a"
            + " LookupVindexSpec");
  }

  @Override
  public String toString() {
    return type.vitessName();
  }
}
