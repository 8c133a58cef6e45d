package dev.rlx.llm.kv;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The attention kernel's f32 row loops over heap arrays, on the Vector API with a scalar twin for tails (and
 * as the readable definition). Only arrays and offsets cross these methods, so no vector object escapes a
 * compiled loop and nothing is boxed.
 *
 * <p>Transitional: Vector API code belongs in backends. The same kernel now runs as the CPU backend's lowering of
 * {@code Op.PagedAttention} on rlx-cpu's own row loops; once {@link PagedAttention} builds a graph with that op
 * (pools bound by reference), this class and the kernel in {@code PagedAttention} go.
 */
final class FloatRows {
    private FloatRows() {}

    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;

    /** {@code sum_i a[ao+i] * b[bo+i]} over {@code n} values. */
    static float dot(float[] a, int ao, float[] b, int bo, int n) {
        int bound = F.loopBound(n);
        FloatVector acc = FloatVector.zero(F);
        for (int i = 0; i < bound; i += F.length()) {
            acc = FloatVector.fromArray(F, a, ao + i).fma(FloatVector.fromArray(F, b, bo + i), acc);
        }
        return acc.reduceLanes(VectorOperators.ADD) + scalarDot(a, ao + bound, b, bo + bound, n - bound);
    }

    static float scalarDot(float[] a, int ao, float[] b, int bo, int n) {
        float acc = 0;
        for (int i = 0; i < n; i++) {
            acc = Math.fma(a[ao + i], b[bo + i], acc);
        }
        return acc;
    }

    /** {@code y[yo+i] += alpha * x[xo+i]} over {@code n} values. */
    static void axpy(float alpha, float[] x, int xo, float[] y, int yo, int n) {
        int bound = F.loopBound(n);
        FloatVector a = FloatVector.broadcast(F, alpha);
        for (int i = 0; i < bound; i += F.length()) {
            FloatVector.fromArray(F, x, xo + i).fma(a, FloatVector.fromArray(F, y, yo + i)).intoArray(y, yo + i);
        }
        scalarAxpy(alpha, x, xo + bound, y, yo + bound, n - bound);
    }

    static void scalarAxpy(float alpha, float[] x, int xo, float[] y, int yo, int n) {
        for (int i = 0; i < n; i++) {
            y[yo + i] = Math.fma(alpha, x[xo + i], y[yo + i]);
        }
    }

    /** {@code y[yo+i] *= alpha} over {@code n} values. */
    static void scale(float[] y, int yo, float alpha, int n) {
        int bound = F.loopBound(n);
        for (int i = 0; i < bound; i += F.length()) {
            FloatVector.fromArray(F, y, yo + i).mul(alpha).intoArray(y, yo + i);
        }
        for (int i = bound; i < n; i++) {
            y[yo + i] *= alpha;
        }
    }
}
