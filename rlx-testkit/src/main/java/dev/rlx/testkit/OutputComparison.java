package dev.rlx.testkit;

import dev.rlx.ir.DType;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.testkit.reference.TensorData;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * Compares one output of a backend with the reference's under a {@link Tolerance} and describes the worst
 * mismatch: where (multi-index and flat position; {@code .re}/{@code .im} for complex), both values, the
 * difference, the bound and its reason.
 */
final class OutputComparison {
    private OutputComparison() {}

    /** Empty when {@code actual} matches {@code expected}; else what differs. */
    static Optional<String> compare(Tensor expected, Tensor actual, Tolerance tol) {
        Shape es = expected.shape();
        if (!es.equals(actual.shape())) {
            return Optional.of("expected " + es + " but the backend returned " + actual.shape());
        }
        DType t = es.dtype();
        if (t.isInteger() || t.isBool()) {
            return integers(es, TensorData.longs(expected), TensorData.longs(actual));
        }
        double[] e = TensorData.doubles(expected);
        double[] a = TensorData.doubles(actual);
        double rms = tol.rmsFactor() > 0 ? rms(e) : 0;
        int bad = 0;
        int worst = -1;
        double worstExcess = -1;
        for (int i = 0; i < e.length; i++) {
            double excess = excess(e[i], a[i], tol, rms);
            if (excess > 0) {
                bad++;
                if (excess > worstExcess) {
                    worstExcess = excess;
                    worst = i;
                }
            }
        }
        if (bad == 0) {
            return Optional.empty();
        }
        double diff = Math.abs(a[worst] - e[worst]);
        return Optional.of(String.format(Locale.ROOT,
                "%d of %d values differ; worst at %s: expected %s but got %s (|diff| %.3g, allowed %.3g: %s)", bad,
                e.length, where(es, worst), e[worst], a[worst], diff, tol.exact() ? 0 : tol.bound(e[worst], rms), tol));
    }

    /** How far {@code a} is past the bound (> 0 fails); NaN matches NaN, infinities and exact values match bits. */
    private static double excess(double e, double a, Tolerance tol, double rms) {
        if (Double.isNaN(e) || Double.isNaN(a)) {
            return Double.isNaN(e) && Double.isNaN(a) ? 0 : Double.POSITIVE_INFINITY;
        }
        if (tol.exact() || Double.isInfinite(e) || Double.isInfinite(a)) {
            return Double.doubleToLongBits(e) == Double.doubleToLongBits(a) ? 0 : Double.POSITIVE_INFINITY;
        }
        double over = Math.abs(a - e) - tol.bound(e, rms);
        return over > 0 ? over : 0;
    }

    private static Optional<String> integers(Shape s, long[] e, long[] a) {
        int bad = 0;
        int first = -1;
        for (int i = 0; i < e.length; i++) {
            if (e[i] != a[i]) {
                bad++;
                first = first < 0 ? i : first;
            }
        }
        return bad == 0 ? Optional.empty() : Optional.of(String.format(Locale.ROOT,
                "%d of %d values differ; first at %s: expected %d but got %d (integer and boolean results are exact)",
                bad, e.length, where(s, first), e[first], a[first]));
    }

    /** {@code sqrt(sum v^2 / max(1, n / 2))}: per complex value for interleaved data, as FFT bounds are stated. */
    private static double rms(double[] v) {
        double s = 0;
        for (double d : v) {
            s += d * d;
        }
        return Math.sqrt(s / Math.max(1, v.length / 2));
    }

    /** {@code [1, 2] (flat 7)}, with {@code .re}/{@code .im} for a C64 scalar. */
    private static String where(Shape s, int scalar) {
        boolean complex = s.dtype().isComplex();
        int element = complex ? scalar / 2 : scalar;
        int[] dims = s.dims();
        int[] idx = new int[dims.length];
        for (int i = dims.length - 1, f = element; i >= 0; i--) {
            idx[i] = f % dims[i];
            f /= dims[i];
        }
        return Arrays.toString(idx) + (complex ? (scalar % 2 == 0 ? ".re" : ".im") : "") + " (flat " + element + ")";
    }
}
