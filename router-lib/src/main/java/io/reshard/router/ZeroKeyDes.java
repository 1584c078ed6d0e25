package io.reshard.router;

/**
 * Single DES under the all-zero key, one 8-byte block: the permutation behind the {@code hash}
 * vindex (Vitess's {@code des.NewCipher(make([]byte, 8))}), computed with lookup tables instead of
 * the JRE's {@link javax.crypto.Cipher}.
 *
 * <p>Why: the copier and the differ place every row they read by its keyspace id, and the JRE's
 * DES, which permutes bit by bit and goes through the provider machinery on every call, was the
 * largest single cost of a diff's reading threads in a profile. The zero key is a DES weak key:
 * every one of its 16 round keys is zero, so a round is {@code f(R) = P(S(E(R)))} with no key
 * mixing, and the tables below are built once from FIPS 46-3's IP, P and S-boxes (E is done with
 * rotations). {@code FunctionalVindexTest}-style checks (the published vectors and a comparison
 * with the JRE cipher over many values) keep it honest.
 *
 * <p>Stateless and thread-safe.
 */
final class ZeroKeyDes {
  private ZeroKeyDes() {}

  /** FIPS 46-3 initial permutation: output bit i (1 = most significant) is input bit IP[i-1]. */
  private static final int[] IP = {
    58, 50, 42, 34, 26, 18, 10, 2, 60, 52, 44, 36, 28, 20, 12, 4, 62, 54, 46, 38, 30, 22, 14, 6, 64,
    56, 48, 40, 32, 24, 16, 8, 57, 49, 41, 33, 25, 17, 9, 1, 59, 51, 43, 35, 27, 19, 11, 3, 61, 53,
    45, 37, 29, 21, 13, 5, 63, 55, 47, 39, 31, 23, 15, 7
  };

  /** FIPS 46-3 permutation P, 32 bits. */
  private static final int[] P = {
    16, 7, 20, 21, 29, 12, 28, 17, 1, 15, 23, 26, 5, 18, 31, 10, 2, 8, 24, 14, 32, 27, 3, 9, 19, 13,
    30, 6, 22, 11, 4, 25
  };

  /** FIPS 46-3 S-boxes S1..S8, each 4 rows of 16, row = outer bits, column = inner 4 bits. */
  private static final int[][] S = {
    {
      14, 4, 13, 1, 2, 15, 11, 8, 3, 10, 6, 12, 5, 9, 0, 7, 0, 15, 7, 4, 14, 2, 13, 1, 10, 6, 12,
      11, 9, 5, 3, 8, 4, 1, 14, 8, 13, 6, 2, 11, 15, 12, 9, 7, 3, 10, 5, 0, 15, 12, 8, 2, 4, 9, 1,
      7, 5, 11, 3, 14, 10, 0, 6, 13
    },
    {
      15, 1, 8, 14, 6, 11, 3, 4, 9, 7, 2, 13, 12, 0, 5, 10, 3, 13, 4, 7, 15, 2, 8, 14, 12, 0, 1, 10,
      6, 9, 11, 5, 0, 14, 7, 11, 10, 4, 13, 1, 5, 8, 12, 6, 9, 3, 2, 15, 13, 8, 10, 1, 3, 15, 4, 2,
      11, 6, 7, 12, 0, 5, 14, 9
    },
    {
      10, 0, 9, 14, 6, 3, 15, 5, 1, 13, 12, 7, 11, 4, 2, 8, 13, 7, 0, 9, 3, 4, 6, 10, 2, 8, 5, 14,
      12, 11, 15, 1, 13, 6, 4, 9, 8, 15, 3, 0, 11, 1, 2, 12, 5, 10, 14, 7, 1, 10, 13, 0, 6, 9, 8, 7,
      4, 15, 14, 3, 11, 5, 2, 12
    },
    {
      7, 13, 14, 3, 0, 6, 9, 10, 1, 2, 8, 5, 11, 12, 4, 15, 13, 8, 11, 5, 6, 15, 0, 3, 4, 7, 2, 12,
      1, 10, 14, 9, 10, 6, 9, 0, 12, 11, 7, 13, 15, 1, 3, 14, 5, 2, 8, 4, 3, 15, 0, 6, 10, 1, 13, 8,
      9, 4, 5, 11, 12, 7, 2, 14
    },
    {
      2, 12, 4, 1, 7, 10, 11, 6, 8, 5, 3, 15, 13, 0, 14, 9, 14, 11, 2, 12, 4, 7, 13, 1, 5, 0, 15,
          10,
      3, 9, 8, 6, 4, 2, 1, 11, 10, 13, 7, 8, 15, 9, 12, 5, 6, 3, 0, 14, 11, 8, 12, 7, 1, 14, 2, 13,
      6, 15, 0, 9, 10, 4, 5, 3
    },
    {
      12, 1, 10, 15, 9, 2, 6, 8, 0, 13, 3, 4, 14, 7, 5, 11, 10, 15, 4, 2, 7, 12, 9, 5, 6, 1, 13, 14,
      0, 11, 3, 8, 9, 14, 15, 5, 2, 8, 12, 3, 7, 0, 4, 10, 1, 13, 11, 6, 4, 3, 2, 12, 9, 5, 15, 10,
      11, 14, 1, 7, 6, 0, 8, 13
    },
    {
      4, 11, 2, 14, 15, 0, 8, 13, 3, 12, 9, 7, 5, 10, 6, 1, 13, 0, 11, 7, 4, 9, 1, 10, 14, 3, 5, 12,
      2, 15, 8, 6, 1, 4, 11, 13, 12, 3, 7, 14, 10, 15, 6, 8, 0, 5, 9, 2, 6, 11, 13, 8, 1, 4, 10, 7,
      9, 5, 0, 15, 14, 2, 3, 12
    },
    {
      13, 2, 8, 4, 6, 15, 11, 1, 10, 9, 3, 14, 5, 0, 12, 7, 1, 15, 13, 8, 10, 3, 7, 4, 12, 5, 6, 11,
      0, 14, 9, 2, 7, 11, 4, 1, 9, 12, 14, 2, 0, 6, 10, 13, 15, 3, 5, 8, 2, 1, 14, 7, 4, 10, 8, 13,
      15, 12, 9, 0, 3, 5, 6, 11
    }
  };

  /** Per input byte position and value, its bits after IP / after IP's inverse. */
  private static final long[][] IP_BYTES = byteTables(IP, 64, 64);

  private static final long[][] FP_BYTES = byteTables(inverse(IP), 64, 64);

  /** Per S-box (64 entries each) and 6-bit input, its 4-bit output already moved through P. */
  private static final int[] SP = spTables();

  /** Encrypts one block, big-endian in a long. */
  static long encrypt(long block) {
    long ip = permute(IP_BYTES, block, 8);
    int l = (int) (ip >>> 32);
    int r = (int) ip;
    for (int round = 0; round < 16; round++) {
      int next = l ^ f(r);
      l = r;
      r = next;
    }
    long preOutput = ((long) r << 32) | (l & 0xffffffffL);
    return permute(FP_BYTES, preOutput, 8);
  }

  /**
   * The round function with a zero round key. E's eight 6-bit groups are overlapping windows of the
   * half rotated right by one bit, so they are read with rotations rather than through E.
   */
  private static int f(int r) {
    int rr = Integer.rotateRight(r, 1);
    return SP[Integer.rotateLeft(rr, 6) & 0x3f]
        | SP[64 | (Integer.rotateLeft(rr, 10) & 0x3f)]
        | SP[128 | (Integer.rotateLeft(rr, 14) & 0x3f)]
        | SP[192 | (Integer.rotateLeft(rr, 18) & 0x3f)]
        | SP[256 | (Integer.rotateLeft(rr, 22) & 0x3f)]
        | SP[320 | (Integer.rotateLeft(rr, 26) & 0x3f)]
        | SP[384 | (Integer.rotateLeft(rr, 30) & 0x3f)]
        | SP[448 | (Integer.rotateLeft(rr, 2) & 0x3f)];
  }

  /** Applies a byte-table permutation to the low {@code bytes} bytes of {@code in}. */
  private static long permute(long[][] tables, long in, int bytes) {
    long out = 0;
    for (int b = 0; b < bytes; b++) {
      out |= tables[b][(int) (in >>> (8 * (bytes - 1 - b))) & 0xff];
    }
    return out;
  }

  /**
   * Tables for a bit permutation of an {@code inBits}-bit value into an {@code outBits}-bit one
   * (bit 1 = most significant), one table per input byte.
   */
  private static long[][] byteTables(int[] table, int inBits, int outBits) {
    long[][] out = new long[inBits / 8][256];
    for (int b = 0; b < inBits / 8; b++) {
      for (int v = 0; v < 256; v++) {
        long in = ((long) v) << (inBits - 8 - 8 * b);
        long o = 0;
        for (int i = 0; i < outBits; i++) {
          if (((in >>> (inBits - table[i])) & 1) != 0) {
            o |= 1L << (outBits - 1 - i);
          }
        }
        out[b][v] = o;
      }
    }
    return out;
  }

  private static int[] inverse(int[] table) {
    int[] inv = new int[table.length];
    for (int i = 0; i < table.length; i++) {
      inv[table[i] - 1] = i + 1;
    }
    return inv;
  }

  private static int[] spTables() {
    int[] out = new int[8 * 64];
    for (int box = 0; box < 8; box++) {
      for (int six = 0; six < 64; six++) {
        int row = ((six >>> 4) & 2) | (six & 1);
        int col = (six >>> 1) & 0xf;
        int s = S[box][row * 16 + col];
        // the box's output occupies bits 4*box+1 .. 4*box+4 of the 32-bit word, before P
        int word = s << (28 - 4 * box);
        int p = 0;
        for (int i = 0; i < 32; i++) {
          if (((word >>> (32 - P[i])) & 1) != 0) {
            p |= 1 << (31 - i);
          }
        }
        out[box * 64 + six] = p;
      }
    }
    return out;
  }
}
