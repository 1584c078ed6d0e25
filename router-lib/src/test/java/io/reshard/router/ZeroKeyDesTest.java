package io.reshard.router;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import javax.crypto.Cipher;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class ZeroKeyDesTest {

  @Test
  void theTableDesAgreesWithTheJreCipherOnSmallAndRandomBlocks() throws Exception {
    Cipher jre = Cipher.getInstance("DES/ECB/NoPadding");
    jre.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(new byte[8], "DES"));
    SplittableRandom random = new SplittableRandom(46);
    for (int i = 0; i < 100_000; i++) {
      long block = i < 2_000 ? i - 1_000 : random.nextLong();
      byte[] want = jre.doFinal(ByteBuffer.allocate(8).putLong(block).array());
      assertEquals(ByteBuffer.wrap(want).getLong(), ZeroKeyDes.encrypt(block), "block " + block);
    }
  }

  @Test
  void theVitessVectors() {
    assertEquals(0x166b40b44aba4bd6L, ZeroKeyDes.encrypt(1));
    assertEquals(0x06e7ea22ce92708fL, ZeroKeyDes.encrypt(2));
  }
}
