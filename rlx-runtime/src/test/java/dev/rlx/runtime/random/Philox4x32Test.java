package dev.rlx.runtime.random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class Philox4x32Test {

    /** Random123's kat_vectors, the three "philox4x32 10" lines: counter[4] key[2] -> output[4]. */
    @ParameterizedTest
    @CsvSource(delimiter = ' ', value = {
        "00000000 00000000 00000000 00000000 00000000 00000000 6627e8d5 e169c58d bc57ac4c 9b00dbd8",
        "ffffffff ffffffff ffffffff ffffffff ffffffff ffffffff 408f276d 41c83b0e a20bc7c6 6d5451fd",
        "243f6a88 85a308d3 13198a2e 03707344 a4093822 299f31d0 d16cfe09 94fdcceb 5001e420 24126ea1",
    })
    void block_random123KnownAnswers(String c0, String c1, String c2, String c3, String k0, String k1,
                                     String o0, String o1, String o2, String o3) {
        int[] out = new int[6];
        Philox4x32.block(hex(c0), hex(c1), hex(c2), hex(c3), hex(k0), hex(k1), out, 2);
        assertArrayEquals(new int[] {0, 0, hex(o0), hex(o1), hex(o2), hex(o3)}, out);
    }

    @Test
    void unitFloat_coversZeroToJustBelowOne() {
        assertEquals(0f, Philox4x32.unitFloat(0x000000FF));
        assertEquals(1f - 0x1p-24f, Philox4x32.unitFloat(-1));
        assertEquals(0.5f, Philox4x32.unitFloat(0x80000000));
    }

    @Test
    void unitOpenBelow_neverZero() {
        assertEquals(0x1p-24, Philox4x32.unitOpenBelow(0));
        assertEquals(1.0, Philox4x32.unitOpenBelow(-1));
    }

    @Test
    void unitDouble_uses53Bits() {
        assertEquals(0.0, Philox4x32.unitDouble(0, 0));
        assertEquals(1.0 - 0x1p-53, Philox4x32.unitDouble(-1, -1));
        assertTrue(Philox4x32.unitDouble(0, 1 << 6) > 0); // the lowest kept bit of the second word counts
    }

    private static int hex(String s) {
        return Integer.parseUnsignedInt(s, 16);
    }
}
