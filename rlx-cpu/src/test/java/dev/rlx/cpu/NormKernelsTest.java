package dev.rlx.cpu;

import dev.rlx.testkit.reference.AxisRef;
import static dev.rlx.testkit.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rlx.testkit.reference.Ref;
import dev.rlx.cpu.testing.Runner;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Softmax, log-softmax and the norms against float64 references in plain loops.
 *
 * <p>Tolerances (f32): softmax values are an exp of a rounded argument times a rounded reciprocal sum, a few
 * ulps: rtol 1e-5 with atol 1e-8 (values go down to ~1e-5 on 32000-wide rows, so atol must stay tiny).
 * Log-softmax values are differences of magnitude up to ~15 rounded in float: atol 1e-5. Norm outputs
 * (magnitude <= ~5) carry the float rounding of {@code (x - mean) * rstd * gamma + beta}: atol 1e-5,
 * rtol 1e-5. F64 is held to 1e-12; F16 and BF16 to one rounding of the result on top of rounded inputs.
 */
class NormKernelsTest {
    private final Random rnd = new Random(3);

    // ---------------------------------------------------------------- references

    static double[] softmaxReference(Ref x, int axis, boolean log) {
        double[] out = new double[x.size()];
        for (int[] line : AxisRef.lines(x.dims(), axis)) {
            double max = Double.NEGATIVE_INFINITY;
            for (int p : line) {
                max = Math.max(max, x.data()[p]);
            }
            double sum = 0;
            for (int p : line) {
                sum += Math.exp(x.data()[p] - max);
            }
            for (int p : line) {
                double v = x.data()[p] - max;
                out[p] = log ? v - Math.log(sum) : Math.exp(v) / sum;
            }
        }
        return out;
    }

    /**
     * Layer norm ({@code centered}) or RMS norm over the trailing dims from {@code axis}: gamma and beta
     * (beta may be null) are indexed by the position within those dims.
     */
    static double[] trailingNormReference(Ref x, Ref gamma, Ref beta, int axis, double eps, boolean centered) {
        int d = 1;
        for (int i = axis; i < x.rank(); i++) {
            d *= x.dims()[i];
        }
        double[] out = new double[x.size()];
        for (int r = 0; r < x.size() / d; r++) {
            double mean = 0;
            if (centered) {
                for (int j = 0; j < d; j++) {
                    mean += x.data()[r * d + j];
                }
                mean /= d;
            }
            double var = 0;
            for (int j = 0; j < d; j++) {
                double dev = x.data()[r * d + j] - mean;
                var += dev * dev;
            }
            double rstd = 1 / Math.sqrt(var / d + eps);
            for (int j = 0; j < d; j++) {
                double b = beta == null ? 0 : beta.data()[j];
                out[r * d + j] = (x.data()[r * d + j] - mean) * rstd * gamma.data()[j] + b;
            }
        }
        return out;
    }

    static double[] groupNormReference(Ref x, Ref gamma, Ref beta, int groups, double eps) {
        int n = x.dims()[0];
        int c = x.dims()[1];
        int spatial = x.size() / (n * c);
        int perGroup = c / groups * spatial;
        double[] out = new double[x.size()];
        for (int b = 0; b < n; b++) {
            for (int g = 0; g < groups; g++) {
                int base = (b * c + g * (c / groups)) * spatial;
                double mean = 0;
                for (int j = 0; j < perGroup; j++) {
                    mean += x.data()[base + j];
                }
                mean /= perGroup;
                double var = 0;
                for (int j = 0; j < perGroup; j++) {
                    double dev = x.data()[base + j] - mean;
                    var += dev * dev;
                }
                double rstd = 1 / Math.sqrt(var / perGroup + eps);
                for (int j = 0; j < perGroup; j++) {
                    int ch = g * (c / groups) + j / spatial;
                    out[base + j] = (x.data()[base + j] - mean) * rstd * gamma.data()[ch] + beta.data()[ch];
                }
            }
        }
        return out;
    }

    // ---------------------------------------------------------------- runners

    private static double[] softmax(DType t, Ref x, int axis, boolean log) {
        Graph g = new Graph("softmax");
        Value in = g.input("x", Shape.of(t, x.dims()));
        g.setOutputs(log ? g.logSoftmax(in, axis) : g.softmax(in, axis));
        return Runner.run(g, Map.of("x", x)).get(0);
    }

    private static void checkSoftmax(DType t, Ref x, int axis, double atol, double rtol) {
        int a = axis < 0 ? axis + x.rank() : axis;
        assertClose(softmaxReference(x, a, false), softmax(t, x, axis, false), atol, rtol, "softmax " + t + " axis " + axis);
    }

    private static void checkLogSoftmax(DType t, Ref x, int axis, double atol, double rtol) {
        int a = axis < 0 ? axis + x.rank() : axis;
        assertClose(softmaxReference(x, a, true), softmax(t, x, axis, true), atol, rtol, "log_softmax " + t + " axis " + axis);
    }

    /** Layer norm ({@code centered}) or RMS norm on the CPU backend; {@code beta} may be null. */
    private static double[] trailingNorm(DType t, Ref x, Ref gamma, Ref beta, int axis, float eps, boolean centered) {
        Graph g = new Graph("norm");
        Value in = g.input("x", Shape.of(t, x.dims()));
        Value gv = g.param("gamma", Shape.of(t, gamma.dims()));
        Value bv = beta == null ? null : g.param("beta", Shape.of(t, beta.dims()));
        g.setOutputs(centered ? g.layerNorm(in, gv, bv, axis, eps) : g.rmsNorm(in, gv, bv, axis, eps));
        Map<String, Object> data = new HashMap<>(Map.of("x", x, "gamma", gamma));
        if (beta != null) {
            data.put("beta", beta);
        }
        return Runner.run(g, data).get(0);
    }

    private void checkTrailing(DType t, Ref x, int axis, boolean withBeta, boolean centered, double atol, double rtol) {
        int a = axis < 0 ? axis + x.rank() : axis;
        int[] nd = java.util.Arrays.copyOfRange(x.dims(), a, x.rank());
        Ref gamma = round(t, Ref.random(rnd, 0.5, 2, nd));
        Ref beta = withBeta ? round(t, Ref.random(rnd, -1, 1, nd)) : null;
        float eps = 1e-5f;
        assertClose(trailingNormReference(x, gamma, beta, a, eps, centered),
                trailingNorm(t, x, gamma, beta, axis, eps, centered), atol, rtol,
                (centered ? "layer_norm " : "rms_norm ") + t + " axis " + axis + (withBeta ? " with beta" : ""));
    }

    private static Ref round(DType t, Ref r) {
        return switch (t) {
            case F16 -> r.map(AxisRef::f16);
            case BF16 -> r.map(AxisRef::bf16);
            default -> r;
        };
    }

    private void checkGroupNorm(DType t, Ref x, int groups, double atol, double rtol) {
        int c = x.dims()[1];
        Ref gamma = round(t, Ref.random(rnd, 0.5, 2, c));
        Ref beta = round(t, Ref.random(rnd, -1, 1, c));
        float eps = 1e-5f;
        Graph g = new Graph("group_norm");
        Value in = g.input("x", Shape.of(t, x.dims()));
        g.setOutputs(g.groupNorm(in, g.param("gamma", Shape.of(t, c)), g.param("beta", Shape.of(t, c)), groups, eps));
        double[] got = Runner.run(g, Map.of("x", x, "gamma", gamma, "beta", beta)).get(0);
        assertClose(groupNormReference(x, gamma, beta, groups, eps), got, atol, rtol, "group_norm " + t + " groups " + groups);
    }

    // ---------------------------------------------------------------- softmax

    @Test
    void softmax_lastAxis() {
        checkSoftmax(DType.F32, Ref.random(rnd, -3, 3, 5, 37), -1, 1e-8, 1e-5);
    }

    @Test
    void softmax_nonLastAxis() {
        Ref x = Ref.random(rnd, -3, 3, 4, 6, 5);
        checkSoftmax(DType.F32, x, 1, 1e-8, 1e-5);
        checkSoftmax(DType.F32, x, 0, 1e-8, 1e-5);
        checkSoftmax(DType.F32, x, -2, 1e-8, 1e-5);
    }

    @Test
    void softmax_largeLogitsAreStable() {
        // without the max shift exp(1000) overflows to inf
        Ref x = Ref.random(rnd, 900, 1000, 3, 40);
        checkSoftmax(DType.F32, x, 1, 1e-8, 1e-5);
        checkSoftmax(DType.F32, x, 0, 1e-8, 1e-5);
    }

    @Test
    void softmax_sizeOneAndEmptyAxes() {
        double[] ones = softmax(DType.F32, Ref.random(rnd, -1, 1, 3, 1), 1, false);
        assertClose(new double[] {1, 1, 1}, ones, 0, 0, "softmax over one element");
        assertEquals(0, softmax(DType.F32, Ref.random(rnd, -1, 1, 3, 0), 1, false).length);
        assertEquals(0, softmax(DType.F32, Ref.random(rnd, -1, 1, 0, 3), 1, true).length);
    }

    @Test
    void softmax_nanPoisonsItsLineOnly() {
        Ref x = Ref.random(rnd, -1, 1, 3, 20);
        x.set(Double.NaN, 1, 4);
        double[] y = softmax(DType.F32, x, 1, false);
        for (int j = 0; j < 20; j++) {
            assertEquals(Double.NaN, y[20 + j]);
            assertEquals(false, Double.isNaN(y[j]) || Double.isNaN(y[40 + j]));
        }
    }

    @Test
    void softmax_otherDtypes() {
        Ref x = Ref.random(rnd, -3, 3, 6, 25);
        checkSoftmax(DType.F64, x, 1, 1e-12, 1e-12);
        checkSoftmax(DType.F64, x, 0, 1e-12, 1e-12);
        checkSoftmax(DType.F16, x.map(AxisRef::f16), 1, 1e-4, 1e-3);
        checkSoftmax(DType.BF16, x.map(AxisRef::bf16), 0, 1e-3, 8e-3);
    }

    @Test
    void softmax_largeVocabularyRows() {
        Ref x = Ref.random(rnd, -5, 5, 64, 32000);
        checkSoftmax(DType.F32, x, 1, 1e-8, 1e-5);
    }

    /**
     * Rows longer than one summation block (4096) with a tail past the last whole vector (4099 is prime):
     * each row's last pass also reads the next row (see NormKernels), so every row must still come out right.
     */
    @Test
    void rowsPastOneBlockWithScalarTails() {
        Ref x = Ref.random(rnd, -3, 3, 7, 4099);
        checkSoftmax(DType.F32, x, 1, 1e-8, 1e-5);
        checkLogSoftmax(DType.F32, x, 1, 1e-5, 1e-6);
        checkTrailing(DType.F32, x, 1, true, true, 1e-5, 1e-5);
        checkTrailing(DType.F32, x, 1, false, true, 1e-5, 1e-5);
        checkTrailing(DType.F32, x, 1, false, false, 1e-5, 1e-5);
    }

    // ---------------------------------------------------------------- log-softmax

    @Test
    void logSoftmax_lastAxis() {
        checkLogSoftmax(DType.F32, Ref.random(rnd, -3, 3, 5, 37), -1, 1e-5, 1e-6);
    }

    @Test
    void logSoftmax_nonLastAxis() {
        Ref x = Ref.random(rnd, -3, 3, 4, 6, 5);
        checkLogSoftmax(DType.F32, x, 1, 1e-5, 1e-6);
        checkLogSoftmax(DType.F32, x, 0, 1e-5, 1e-6);
    }

    @Test
    void logSoftmax_otherDtypes() {
        Ref x = Ref.random(rnd, -3, 3, 6, 25);
        checkLogSoftmax(DType.F64, x, 1, 1e-12, 1e-12);
        checkLogSoftmax(DType.F16, x.map(AxisRef::f16), 1, 1e-2, 1e-3);
    }

    @Test
    void logSoftmax_largeVocabularyRows() {
        checkLogSoftmax(DType.F32, Ref.random(rnd, -5, 5, 16, 32000), 1, 1e-5, 1e-6);
    }

    // ---------------------------------------------------------------- layer norm

    @Test
    void layerNorm_lastAxis() {
        Ref x = Ref.random(rnd, -2, 2, 6, 67);
        checkTrailing(DType.F32, x, -1, true, true, 1e-5, 1e-5);
        checkTrailing(DType.F32, x, 1, false, true, 1e-5, 1e-5);
    }

    @Test
    void layerNorm_trailingAxes() {
        Ref x = Ref.random(rnd, -2, 2, 4, 6, 8);
        checkTrailing(DType.F32, x, 1, true, true, 1e-5, 1e-5);
        checkTrailing(DType.F32, x, -3, true, true, 1e-5, 1e-5);
    }

    /**
     * Values 1000 +- 1: mean-then-variance keeps the ~0.33 variance exact to float precision, where
     * E[x^2] - E[x]^2 in float would cancel 1e6 against 1e6. The input itself carries ulp(1000) = 6e-5,
     * which the kernel's float subtraction of the rounded mean may double: atol 2e-4 after scaling by ~1.7.
     */
    @Test
    void layerNorm_largeOffsetIsStable() {
        Ref x = Ref.random(rnd, 999, 1001, 3, 500);
        checkTrailing(DType.F32, x, 1, true, true, 2e-4, 1e-5);
    }

    @Test
    void layerNorm_sizeOneDims() {
        checkTrailing(DType.F32, Ref.random(rnd, -2, 2, 3, 1, 9), 1, true, true, 1e-5, 1e-5);
        // a single element normalises to 0, leaving beta
        checkTrailing(DType.F32, Ref.random(rnd, -2, 2, 5, 1), 1, true, true, 1e-5, 1e-5);
    }

    @Test
    void layerNorm_otherDtypes() {
        Ref x = Ref.random(rnd, -2, 2, 5, 40);
        checkTrailing(DType.F64, x, 1, true, true, 1e-12, 1e-12);
        checkTrailing(DType.F16, x.map(AxisRef::f16), 1, true, true, 1e-2, 1e-3);
        checkTrailing(DType.BF16, x.map(AxisRef::bf16), 1, false, true, 5e-2, 8e-3);
    }

    @Test
    void layerNorm_large() {
        checkTrailing(DType.F32, Ref.random(rnd, -2, 2, 256, 4096), 1, true, true, 1e-5, 1e-5);
    }

    @Test
    void layerNorm_emptyBatch() {
        Ref x = Ref.random(rnd, -2, 2, 0, 8);
        assertEquals(0, trailingNorm(DType.F32, x, Ref.random(rnd, 1, 2, 8), null, 1, 1e-5f, true).length);
    }

    // ---------------------------------------------------------------- RMS norm

    @Test
    void rmsNorm_lastAxis() {
        Ref x = Ref.random(rnd, -2, 2, 6, 67);
        checkTrailing(DType.F32, x, -1, false, false, 1e-5, 1e-5);
        checkTrailing(DType.F32, x, -1, true, false, 1e-5, 1e-5);
        // an odd number of whole vectors (3 at 16 lanes, 7 at 8) past the two-at-a-time loop, then a scalar tail
        checkTrailing(DType.F32, Ref.random(rnd, -2, 2, 5, 57), -1, true, false, 1e-5, 1e-5);
    }

    @Test
    void rmsNorm_trailingAxes() {
        checkTrailing(DType.F32, Ref.random(rnd, -2, 2, 3, 4, 10), 1, true, false, 1e-5, 1e-5);
    }

    @Test
    void rmsNorm_otherDtypes() {
        Ref x = Ref.random(rnd, -2, 2, 5, 40);
        checkTrailing(DType.F64, x, 1, false, false, 1e-12, 1e-12);
        checkTrailing(DType.F16, x.map(AxisRef::f16), 1, true, false, 1e-2, 1e-3);
    }

    @Test
    void rmsNorm_large() {
        checkTrailing(DType.F32, Ref.random(rnd, -2, 2, 256, 4096), 1, false, false, 1e-5, 1e-5);
    }

    // ---------------------------------------------------------------- group norm

    @Test
    void groupNorm_spatial() {
        checkGroupNorm(DType.F32, Ref.random(rnd, -2, 2, 2, 6, 4, 5), 3, 1e-5, 1e-5);
        checkGroupNorm(DType.F32, Ref.random(rnd, -2, 2, 2, 6, 4, 5), 6, 1e-5, 1e-5);
        checkGroupNorm(DType.F32, Ref.random(rnd, -2, 2, 2, 6, 4, 5), 1, 1e-5, 1e-5);
    }

    @Test
    void groupNorm_rank2() {
        checkGroupNorm(DType.F32, Ref.random(rnd, -2, 2, 3, 8), 4, 1e-5, 1e-5);
    }

    @Test
    void groupNorm_otherDtypes() {
        Ref x = Ref.random(rnd, -2, 2, 2, 4, 3, 3);
        checkGroupNorm(DType.F64, x, 2, 1e-12, 1e-12);
        checkGroupNorm(DType.F16, x.map(AxisRef::f16), 2, 1e-2, 1e-3);
    }

    @Test
    void groupNorm_large() {
        checkGroupNorm(DType.F32, Ref.random(rnd, -2, 2, 4, 64, 32, 32), 8, 1e-5, 1e-5);
    }
}
