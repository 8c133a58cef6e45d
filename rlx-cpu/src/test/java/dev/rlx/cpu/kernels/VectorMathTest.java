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

    /**
     * erf and GELU through memory (expNonPositive) give the register-only versions' bits: on 2^16 random inputs over
     * [-12, 12], the specials (NaN compared as NaN), and erf's tail where exp(-x^2) underflows; and both stay within 6e-7 of float64 erf (A&S 7.1.26: 1.5e-7, plus the rounding of 1 - p e in float).
     */
    @Test
    void erfAndGeluThroughMemory_equalRegisterOnlyBits() {
        Random r = new Random(11);
        float[] x = new float[1 << 16];
        for (int i = 0; i < x.length; i++) {
            x[i] = (r.nextFloat() - 0.5f) * 24f;
        }
        float[] specials = {0f, -0f, Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 9.33f, -9.34f,
                13.2f, 1e-20f, -3.4e38f, Float.MIN_VALUE};
        System.arraycopy(specials, 0, x, 0, specials.length);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment via = arena.allocate(4L * W, 64);
            for (int i = 0; i < x.length; i += W) {
                FloatVector v = FloatVector.fromArray(VectorMath.F, x, i);
                via.fill((byte) 0x5A);
                FloatVector erf = VectorMath.erf(v, via, 0);
                FloatVector gelu = VectorMath.gelu(v, via, 0);
                for (int l = 0; l < W; l++) {
                    float xi = x[i + l];
                    // NaN in, NaN out (its sign bit may differ)
                    assertEquals(Float.floatToIntBits(VectorMath.erf(v).lane(l)), Float.floatToIntBits(erf.lane(l)),
                            "erf(" + xi + ")");
                    assertEquals(Float.floatToIntBits(VectorMath.gelu(v).lane(l)), Float.floatToIntBits(gelu.lane(l)),
                            "gelu(" + xi + ")");
                    if (Float.isFinite(xi)) {
                        assertEquals(erfReference(xi), erf.lane(l), 6e-7, "erf(" + xi + ") against float64");
                    }
                }
            }
        }
    }

    /** erf in float64 by its Taylor series below 3 and its asymptotic continued fraction above (error < 1e-12). */
    private static double erfReference(double x) {
        double a = Math.abs(x);
        double y;
        if (a < 3) {
            double term = a;
            double sum = a;
            for (int n = 1; n < 200; n++) {
                term *= -a * a / n;
                sum += term / (2 * n + 1);
            }
            y = 2 / Math.sqrt(Math.PI) * sum;
        } else {
            double f = 0;
            for (int n = 60; n >= 1; n--) {
                f = n / 2.0 / (a + f);
            }
            y = 1 - Math.exp(-a * a) / Math.sqrt(Math.PI) / (a + f);
        }
        return Math.copySign(y, x);
    }
}
