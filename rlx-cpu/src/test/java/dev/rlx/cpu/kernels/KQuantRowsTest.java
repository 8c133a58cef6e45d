package dev.rlx.cpu.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rlx.ir.quant.WeightFormat;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The vector decoders of Q4_K, Q5_K and Q6_K rows give the reference decoder's floats bit for bit: random super-blocks
 * (every code, scale and min byte random), with small finite block scales and with random ones (infinities and
 * NaN included, compared with NaNs made canonical), over 1, 3 and 5 super-blocks.
 */
class KQuantRowsTest {
    @ParameterizedTest(name = "{0} x{1} random scales {2}")
    @CsvSource({"Q4_K, 1, false", "Q4_K, 3, false", "Q4_K, 5, true", "Q5_K, 1, false", "Q5_K, 3, false",
            "Q5_K, 5, true", "Q6_K, 1, false", "Q6_K, 3, false", "Q6_K, 5, true"})
    void decodesAsTheReference(WeightFormat f, int superBlocks, boolean randomScales) {
        int k = 256 * superBlocks;
        Random r = new Random(31L * superBlocks + f.ordinal());
        try (Arena a = Arena.ofConfined()) {
            for (int trial = 0; trial < 50; trial++) {
                byte[] bytes = new byte[(int) f.rowBytes(k)];
                r.nextBytes(bytes);
                MemorySegment w = a.allocate(bytes.length + 7L).asSlice(trial % 7, bytes.length); // unaligned too
                MemorySegment.copy(bytes, 0, w, ValueLayout.JAVA_BYTE, 0, bytes.length);
                if (!randomScales) {
                    for (int b = 0; b < superBlocks; b++) {
                        long o = (long) b * f.blockBytes();
                        short d = Float.floatToFloat16((float) (r.nextDouble() * 0.01 + 1e-4));
                        w.set(ValueLayout.JAVA_SHORT_UNALIGNED, o + (f == WeightFormat.Q6_K ? 208 : 0), d);
                        if (f != WeightFormat.Q6_K) {
                            w.set(ValueLayout.JAVA_SHORT_UNALIGNED, o + 2, d);
                        }
                    }
                }
                float[] want = new float[k];
                f.decode(w, 0, want, 0, k);
                MemorySegment row = a.allocate(4L * k, 64);
                if (f != WeightFormat.Q6_K) {
                    KQuantRows.q45K(w, 0, row, k, f == WeightFormat.Q5_K);
                } else {
                    KQuantRows.q6K(w, 0, row, k);
                }
                for (int i = 0; i < k; i++) {
                    assertEquals(Float.floatToIntBits(want[i]),
                            Float.floatToIntBits(row.getAtIndex(ValueLayout.JAVA_FLOAT, i)),
                            f + " trial " + trial + " value " + i + ": " + want[i] + " vs "
                                    + row.getAtIndex(ValueLayout.JAVA_FLOAT, i));
                }
            }
        }
    }
}
