package dev.rlx.cpu.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import jdk.incubator.vector.FloatVector;
import org.junit.jupiter.api.Test;

/** The vector math functions against double-precision references on random inputs. */
class VectorMathTest {
    private static final int W = VectorMath.F.length();

    private static float[] apply(float[] x) {
        float[] y = new float[x.length];
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment via = arena.allocate(4L * W, 64);
            via.fill((byte) 0x5A); // whatever is there first must not matter
            for (int i = 0; i < x.length; i += W) {
                VectorMath.expNonPositive(FloatVector.fromArray(VectorMath.F, x, i), via, 0).intoArray(y, i);
            }
        }
        return y;
    }

    /** Relative error below 1.2e-7 (one float ulp at 1) over [-87.3, 0], on 2^16 random points and the ends. */
    @Test
    void expNonPositive_matchesDoubleExp() {
        Random r = new Random(7);
        float[] x = new float[1 << 16];
        for (int i = 0; i < x.length; i++) {
            x[i] = -87.3f * r.nextFloat();
        }
        x[0] = 0f;
        x[1] = -87.29f;
        x[2] = -1e-30f;
        float[] y = apply(x);
        double worst = 0;
        for (int i = 0; i < x.length; i++) {
            double want = Math.exp(x[i]);
            worst = Math.max(worst, Math.abs(y[i] - want) / want);
        }
        assertTrue(worst < 1.2e-7, "max relative error " + worst);
    }

    @Test
    void expNonPositive_underflowInfinityAndNaN() {
        float[] x = new float[W];
        x[0] = Float.NEGATIVE_INFINITY;
        x[1 % W] = -100f;
        x[2 % W] = Float.NaN;
        float[] y = apply(x);
        assertEquals(0f, y[0], "exp(-inf)");
        if (W > 2) {
            assertEquals(0f, y[1], "exp(-100) underflows to 0");
            assertTrue(Float.isNaN(y[2]), "exp(NaN)");
        }
        assertEquals(0f, VectorMath.expNonPositive(Float.NEGATIVE_INFINITY));
        assertEquals((float) Math.exp(-3.5), VectorMath.expNonPositive(-3.5f));
    }
}
