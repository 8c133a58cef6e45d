package dev.rlx.cpu.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import java.util.function.DoubleUnaryOperator;
import java.util.function.UnaryOperator;
import jdk.incubator.vector.FloatVector;
import org.junit.jupiter.api.Test;

/**
 * tanh, log, sin, cos, tan and atan of {@link VectorMath} and {@link VectorTrig} (the JIT-stable replacements of
 * {@code lanewise(TANH/LOG/SIN/...)}) against double-precision references on random inputs over their whole
 * ranges, with the error bound in float ulps of the exact result, and their special values.
 */
class VectorTranscendentalsTest {
    private static final int W = VectorMath.F.length();

    private static float[] apply(UnaryOperator<FloatVector> f, float[] x) {
        float[] y = new float[x.length];
        for (int i = 0; i < x.length; i += W) {
            f.apply(FloatVector.fromArray(VectorMath.F, x, i)).intoArray(y, i);
        }
        return y;
    }

    /** log through a native scratch segment, as the loops call it (the output's memory). */
    private static float[] log(float[] x) {
        float[] y = new float[x.length];
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment via = arena.allocate(4L * W, 64);
            for (int i = 0; i < x.length; i += W) {
                VectorMath.log(FloatVector.fromArray(VectorMath.F, x, i), via, 0).intoArray(y, i);
            }
        }
        return y;
    }

    /** Worst error in ulps of the float nearest the exact value, with {@code floor} as the smallest ulp counted. */
    private static double worstUlps(float[] x, float[] y, DoubleUnaryOperator ref, double floor) {
        double worst = 0;
        for (int i = 0; i < x.length; i++) {
            double want = ref.applyAsDouble(x[i]);
            double ulp = Math.max(Math.ulp((float) want), floor);
            double err = Math.abs(y[i] - want) / ulp;
            if (!(err <= worst)) {
                worst = err; // NaN too: it fails the bound
            }
        }
        return worst;
    }

    private static float[] uniform(long seed, double lo, double hi) {
        Random r = new Random(seed);
        float[] x = new float[1 << 16];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) (lo + (hi - lo) * r.nextDouble());
        }
        return x;
    }

    /** Magnitudes spread over the whole float range (log-uniform, subnormals included), signs random. */
    private static float[] wide(long seed, boolean positive) {
        Random r = new Random(seed);
        float[] x = new float[1 << 16];
        for (int i = 0; i < x.length; i++) {
            float m = (float) Math.pow(2, -149 + 277 * r.nextDouble());
            x[i] = positive || r.nextBoolean() ? m : -m;
        }
        return x;
    }

    @Test
    void tanh_within3Ulps() {
        float[] x = uniform(1, -12, 12);
        assertTrue(worstUlps(x, apply(VectorMath::tanh, x), Math::tanh, 0) <= 3);
        float[] w = wide(2, false);
        assertTrue(worstUlps(w, apply(VectorMath::tanh, w), Math::tanh, 0) <= 3, "tiny to huge");
    }

    @Test
    void log_within2Ulps_fromSubnormalToLargest() {
        float[] x = wide(3, true);
        x[0] = Float.MIN_VALUE;
        x[1] = Float.MAX_VALUE;
        x[2] = 1f;
        x[3] = Math.nextUp(1f);
        x[4] = Math.nextDown(1f);
        assertTrue(worstUlps(x, log(x), Math::log, 0) <= 2);
        float[] near1 = uniform(4, 0.5, 2);
        // near 1 the result is tiny: count error against ulp(1e-7), the float grid there is finer than log's
        assertTrue(worstUlps(near1, log(near1), Math::log, 0) <= 2);
    }

    @Test
    void sinCosTan_withinUlps_upToTheReductionRange() {
        float[] x = uniform(5, -VectorTrig.REDUCE_MAX, VectorTrig.REDUCE_MAX);
        // near a zero of sin/cos the absolute error of the reduced argument (about 6e-8) dominates
        assertTrue(worstUlps(x, apply(VectorTrig::sin, x), Math::sin, 6e-8) <= 3, "sin");
        assertTrue(worstUlps(x, apply(VectorTrig::cos, x), Math::cos, 6e-8) <= 3, "cos");
        float[] small = uniform(6, -4, 4);
        assertTrue(worstUlps(small, apply(VectorTrig::sin, small), Math::sin, 6e-8) <= 3, "sin small");
        assertTrue(worstUlps(small, apply(VectorTrig::tan, small), Math::tan, 6e-8) <= 4, "tan small");
        float[] tiny = wide(7, false);
        for (int i = 0; i < tiny.length; i++) {
            tiny[i] = tiny[i] % 1f; // every magnitude below 1
        }
        assertTrue(worstUlps(tiny, apply(VectorTrig::sin, tiny), Math::sin, 0) <= 2, "sin tiny");
        assertTrue(worstUlps(tiny, apply(VectorTrig::tan, tiny), Math::tan, 0) <= 2, "tan tiny");
    }

    @Test
    void sinCosTan_beyondTheReductionRange_areStrictMathsInDouble() {
        float[] x = uniform(8, -1e9, 1e9);
        float[] s = apply(VectorTrig::sin, x);
        float[] c = apply(VectorTrig::cos, x);
        float[] t = apply(VectorTrig::tan, x);
        for (int i = 0; i < x.length; i++) {
            if (Math.abs(x[i]) > VectorTrig.REDUCE_MAX) {
                assertEquals((float) StrictMath.sin(x[i]), s[i], "sin " + x[i]);
                assertEquals((float) StrictMath.cos(x[i]), c[i], "cos " + x[i]);
                assertEquals((float) StrictMath.tan(x[i]), t[i], "tan " + x[i]);
            }
        }
    }

    /** The loops' patch path (beyond the reduction range, patched in memory) gives the register form's bits. */
    @Test
    void loops_giveTheRegisterFormsBits_nearAndBeyondTheReductionRange() {
        float[] x = uniform(11, -3e4, 3e4); // about a quarter of the lanes beyond the range
        x[5] = Float.NaN;
        x[6] = Float.POSITIVE_INFINITY;
        int n = x.length;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment in = arena.allocate(4L * n, 64);
            MemorySegment out = arena.allocate(4L * n, 64);
            MemorySegment.copy(x, 0, in, java.lang.foreign.ValueLayout.JAVA_FLOAT, 0, n);
            for (var k : java.util.List.of(dev.rlx.ir.UnaryKind.SIN, dev.rlx.ir.UnaryKind.COS, dev.rlx.ir.UnaryKind.TAN)) {
                int done = UnaryF32Loops.run(k, in, 0, out, 0, n);
                assertEquals(n, done);
                float[] loop = out.toArray(java.lang.foreign.ValueLayout.JAVA_FLOAT);
                float[] reg = apply(switch (k) {
                    case SIN -> VectorTrig::sin;
                    case COS -> VectorTrig::cos;
                    default -> VectorTrig::tan;
                }, x);
                for (int i = 0; i < n; i++) {
                    assertEquals(Float.floatToRawIntBits(reg[i]), Float.floatToRawIntBits(loop[i]), k + " at " + x[i]);
                }
            }
        }
    }

    @Test
    void atan_within3Ulps() {
        float[] x = wide(9, false);
        double w = worstUlps(x, apply(VectorTrig::atan, x), Math::atan, 0);
        assertTrue(w <= 3, "wide " + w);
        float[] mid = uniform(10, -3, 3);
        double m = worstUlps(mid, apply(VectorTrig::atan, mid), Math::atan, 0);
        assertTrue(m <= 3, "mid " + m);
    }

    @Test
    void specialValues() {
        float[] x = new float[W * ((7 + W - 1) / W)];
        float[] v = {0f, -0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN, -1f, Float.MIN_VALUE};
        System.arraycopy(v, 0, x, 0, v.length);
        float[] log = log(x);
        assertEquals(Float.NEGATIVE_INFINITY, log[0]);
        assertEquals(Float.NEGATIVE_INFINITY, log[1]);
        assertEquals(Float.POSITIVE_INFINITY, log[2]);
        assertTrue(Float.isNaN(log[3]) && Float.isNaN(log[4]) && Float.isNaN(log[5]));
        assertEquals((float) Math.log(Float.MIN_VALUE), log[6]);
        float[] tanh = apply(VectorMath::tanh, x);
        assertEquals(Float.floatToRawIntBits(-0f), Float.floatToRawIntBits(tanh[1]), "tanh(-0) = -0");
        assertEquals(1f, tanh[2]);
        assertEquals(-1f, tanh[3]);
        assertTrue(Float.isNaN(tanh[4]));
        float[] atan = apply(VectorTrig::atan, x);
        assertEquals((float) (Math.PI / 2), atan[2]);
        assertEquals((float) (-Math.PI / 2), atan[3]);
        assertTrue(Float.isNaN(atan[4]));
        assertEquals(Float.floatToRawIntBits(-0f), Float.floatToRawIntBits(atan[1]), "atan(-0) = -0");
        assertEquals(Float.floatToRawIntBits(-0f), Float.floatToRawIntBits(apply(VectorTrig::tan, x)[1]), "tan(-0)");
        float[] sin = apply(VectorTrig::sin, x);
        assertEquals(Float.floatToRawIntBits(-0f), Float.floatToRawIntBits(sin[1]), "sin(-0) = -0");
        assertTrue(Float.isNaN(sin[2]) && Float.isNaN(sin[3]) && Float.isNaN(sin[4]));
        float[] cos = apply(VectorTrig::cos, x);
        assertEquals(1f, cos[0]);
        assertTrue(Float.isNaN(cos[2]) && Float.isNaN(cos[4]));
    }
}
