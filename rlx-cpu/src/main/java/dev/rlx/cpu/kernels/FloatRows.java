package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * f32 row primitives over arena memory (offsets and strides in elements), shared by the attention and
 * convolution kernels. Each Vector API loop has a scalar twin: the readable definition, used for loop tails
 * and strided rows.
 */
final class FloatRows {
    private FloatRows() {}

    private static final VectorSpecies<Float> F = VectorMath.F;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    /** {@code sum_i a[ao + i] * b[bo + i]} over {@code n} contiguous elements. */
    static float dot(MemorySegment a, long ao, MemorySegment b, long bo, int n) {
        int bound = F.loopBound(n);
        FloatVector acc = FloatVector.zero(F);
        for (int i = 0; i < bound; i += F.length()) {
            FloatVector x = FloatVector.fromMemorySegment(F, a, (ao + i) * 4, LE);
            FloatVector y = FloatVector.fromMemorySegment(F, b, (bo + i) * 4, LE);
            acc = x.fma(y, acc);
        }
        return VectorMath.sumLanes(acc) + scalarDot(a, ao + bound, b, bo + bound, n - bound);
    }

    static float scalarDot(MemorySegment a, long ao, MemorySegment b, long bo, int n) {
        float acc = 0;
        for (int i = 0; i < n; i++) {
            acc = Math.fma(a.getAtIndex(JAVA_FLOAT, ao + i), b.getAtIndex(JAVA_FLOAT, bo + i), acc);
        }
        return acc;
    }

    /**
     * {@code y[yo + i*ys] += alpha * x[xo + i*xs]} for {@code i < n}; vectorised when both rows are
     * contiguous.
     */
    static void axpy(float alpha, MemorySegment x, long xo, long xs, MemorySegment y, long yo, long ys, int n) {
        if (xs != 1 || ys != 1) {
            scalarAxpy(alpha, x, xo, xs, y, yo, ys, n);
            return;
        }
        int bound = F.loopBound(n);
        FloatVector a = FloatVector.broadcast(F, alpha);
        for (int i = 0; i < bound; i += F.length()) {
            long yb = (yo + i) * 4;
            FloatVector xv = FloatVector.fromMemorySegment(F, x, (xo + i) * 4, LE);
            xv.fma(a, FloatVector.fromMemorySegment(F, y, yb, LE)).intoMemorySegment(y, yb, LE);
        }
        scalarAxpy(alpha, x, xo + bound, 1, y, yo + bound, 1, n - bound);
    }

    static void scalarAxpy(float alpha, MemorySegment x, long xo, long xs, MemorySegment y, long yo, long ys, int n) {
        for (int i = 0; i < n; i++) {
            long yi = yo + i * ys;
            y.setAtIndex(JAVA_FLOAT, yi, Math.fma(alpha, x.getAtIndex(JAVA_FLOAT, xo + i * xs), y.getAtIndex(JAVA_FLOAT, yi)));
        }
    }

    /** {@code y[yo + i] *= alpha} over {@code n} contiguous elements. */
    static void scale(MemorySegment y, long yo, float alpha, int n) {
        int bound = F.loopBound(n);
        for (int i = 0; i < bound; i += F.length()) {
            long yb = (yo + i) * 4;
            FloatVector.fromMemorySegment(F, y, yb, LE).mul(alpha).intoMemorySegment(y, yb, LE);
        }
        for (int i = bound; i < n; i++) {
            y.setAtIndex(JAVA_FLOAT, yo + i, y.getAtIndex(JAVA_FLOAT, yo + i) * alpha);
        }
    }

    /** {@code y[yo + i] = v} over {@code n} contiguous elements. */
    static void fill(MemorySegment y, long yo, float v, int n) {
        int bound = F.loopBound(n);
        FloatVector vv = FloatVector.broadcast(F, v);
        for (int i = 0; i < bound; i += F.length()) {
            vv.intoMemorySegment(y, (yo + i) * 4, LE);
        }
        for (int i = bound; i < n; i++) {
            y.setAtIndex(JAVA_FLOAT, yo + i, v);
        }
    }

    /**
     * {@code y[yo + i] = x[xo + i]} over {@code n} contiguous elements, the ranges not overlapping: for short
     * runs (im2col, GEMM packing), where {@code MemorySegment.copy}'s per-call checks cost more than the copy
     * (256 bytes: 12 ns through it, 6.5 through this loop).
     */
    static void copy(MemorySegment x, long xo, MemorySegment y, long yo, int n) {
        int i = 0;
        for (int bound = F.loopBound(n); i < bound; i += F.length()) {
            FloatVector.fromMemorySegment(F, x, (xo + i) * 4, LE).intoMemorySegment(y, (yo + i) * 4, LE);
        }
        for (; i < n; i++) {
            y.setAtIndex(JAVA_FLOAT, yo + i, x.getAtIndex(JAVA_FLOAT, xo + i));
        }
    }

    /** {@code y[yo + i] += v} over {@code n} contiguous elements. */
    static void addScalar(MemorySegment y, long yo, float v, int n) {
        int bound = F.loopBound(n);
        for (int i = 0; i < bound; i += F.length()) {
            long yb = (yo + i) * 4;
            FloatVector.fromMemorySegment(F, y, yb, LE).add(v).intoMemorySegment(y, yb, LE);
        }
        for (int i = bound; i < n; i++) {
            y.setAtIndex(JAVA_FLOAT, yo + i, y.getAtIndex(JAVA_FLOAT, yo + i) + v);
        }
    }
}
