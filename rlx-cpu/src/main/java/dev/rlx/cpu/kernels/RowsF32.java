package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Vector API loops over contiguous f32 rows, shared by the reduce, softmax and norm kernels: SIMD main loop,
 * one {@code reduceLanes}, scalar tail. Sums accumulate in float lanes over blocks of {@link #BLOCK}
 * elements and the block sums in double, so the rounding error grows with the block, not the row length.
 * The strided and non-f32 paths of those kernels (through {@link Elements}, in double) are the scalar
 * definitions these loops are tested against.
 */
final class RowsF32 {
    private RowsF32() {}

    private static final VectorSpecies<Float> F = VectorMath.F;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    /** Elements summed in float lanes before the partial sum moves to double (a multiple of any lane count). */
    static final int BLOCK = 1024;

    /** What {@link #blockedSum} adds up, given a constant {@code c}. */
    private enum Term { VALUE, SQUARED_DEVIATION, EXP_SHIFTED }

    /** Sum of {@code x[xo .. xo+len)}. */
    static double sum(MemorySegment x, long xo, int len) {
        return blockedSum(Term.VALUE, x, xo, len, 0f, null, 0);
    }

    /** Sum of {@code (x - mean)^2}: the second pass of a two-pass variance (a sum of squares for mean 0). */
    static double sumSquaredDeviations(MemorySegment x, long xo, int len, float mean) {
        return blockedSum(Term.SQUARED_DEVIATION, x, xo, len, mean, null, 0);
    }

    /** Writes {@code y = exp(x - shift)} and returns its sum (softmax with the row max as shift). */
    static double expShiftedSum(MemorySegment x, long xo, MemorySegment y, long yo, int len, float shift) {
        return blockedSum(Term.EXP_SHIFTED, x, xo, len, shift, y, yo);
    }

    private static double blockedSum(Term t, MemorySegment x, long xo, int len, float c, MemorySegment y, long yo) {
        boolean store = t == Term.EXP_SHIFTED;
        double total = 0;
        for (int b = 0; b < len; b += BLOCK) {
            int end = Math.min(len, b + BLOCK);
            int bound = b + F.loopBound(end - b);
            FloatVector acc = FloatVector.zero(F);
            int j = b;
            for (; j < bound; j += F.length()) {
                FloatVector v = term(t, FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE), c);
                if (store) {
                    v.intoMemorySegment(y, (yo + j) * 4, LE);
                }
                acc = acc.add(v);
            }
            float part = acc.reduceLanes(VectorOperators.ADD);
            for (; j < end; j++) {
                float v = term(t, x.getAtIndex(JAVA_FLOAT, xo + j), c);
                if (store) {
                    y.setAtIndex(JAVA_FLOAT, yo + j, v);
                }
                part += v;
            }
            total += part;
        }
        return total;
    }

    private static FloatVector term(Term t, FloatVector v, float c) {
        return switch (t) {
            case VALUE -> v;
            case SQUARED_DEVIATION -> {
                FloatVector d = v.sub(c);
                yield d.mul(d);
            }
            case EXP_SHIFTED -> v.sub(c).lanewise(VectorOperators.EXP);
        };
    }

    private static float term(Term t, float v, float c) {
        return switch (t) {
            case VALUE -> v;
            case SQUARED_DEVIATION -> (v - c) * (v - c);
            case EXP_SHIFTED -> (float) Math.exp(v - c);
        };
    }

    /**
     * The largest ({@code largest}) or smallest element: NaN if any is NaN, -inf (+inf) when empty. The
     * smallest is {@code -max(-x)} (negation is exact and keeps NaN), so the loop-carried vector takes one
     * path: a data-dependent choice between max and min there defeats the JIT's box elimination once both
     * have run.
     */
    static float extreme(MemorySegment x, long xo, int len, boolean largest) {
        float sign = largest ? 1f : -1f;
        FloatVector acc = FloatVector.broadcast(F, Float.NEGATIVE_INFINITY);
        int j = 0;
        for (int bound = F.loopBound(len); j < bound; j += F.length()) {
            // lane-wise Math.max: NaN propagates
            acc = acc.max(FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE).mul(sign));
        }
        float m = acc.reduceLanes(VectorOperators.MAX);
        for (; j < len; j++) {
            m = Math.max(m, x.getAtIndex(JAVA_FLOAT, xo + j) * sign);
        }
        return m * sign;
    }

    /** Index of the first element equal to {@code target} (the first NaN when it is NaN), or -1. */
    static int indexOf(MemorySegment x, long xo, int len, float target) {
        boolean nan = Float.isNaN(target);
        int j = 0;
        for (int bound = F.loopBound(len); j < bound; j += F.length()) {
            FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE);
            VectorMask<Float> hit = nan ? v.test(VectorOperators.IS_NAN) : v.compare(VectorOperators.EQ, target);
            if (hit.anyTrue()) {
                return j + hit.firstTrue();
            }
        }
        for (; j < len; j++) {
            float v = x.getAtIndex(JAVA_FLOAT, xo + j);
            if (nan ? Float.isNaN(v) : v == target) {
                return j;
            }
        }
        return -1;
    }

    /**
     * {@code y[yo+j] = (x[xo+j] - shift) * scale * G + B} where G is {@code g[go+j]}, or the constant
     * {@code gc} when {@code g} is null, and B likewise ({@code b}, {@code bo}, {@code bc}). {@code y} may be
     * {@code x}.
     */
    static void affine(MemorySegment x, long xo, MemorySegment y, long yo, int len, float shift, float scale,
                       MemorySegment g, long go, float gc, MemorySegment b, long bo, float bc) {
        FloatVector gConst = FloatVector.broadcast(F, gc);
        FloatVector bConst = FloatVector.broadcast(F, bc);
        int j = 0;
        for (int bound = F.loopBound(len); j < bound; j += F.length()) {
            FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE).sub(shift).mul(scale);
            FloatVector gv = g == null ? gConst : FloatVector.fromMemorySegment(F, g, (go + j) * 4, LE);
            FloatVector bv = b == null ? bConst : FloatVector.fromMemorySegment(F, b, (bo + j) * 4, LE);
            v.fma(gv, bv).intoMemorySegment(y, (yo + j) * 4, LE);
        }
        for (; j < len; j++) {
            float v = (x.getAtIndex(JAVA_FLOAT, xo + j) - shift) * scale;
            float gv = g == null ? gc : g.getAtIndex(JAVA_FLOAT, go + j);
            float bv = b == null ? bc : b.getAtIndex(JAVA_FLOAT, bo + j);
            y.setAtIndex(JAVA_FLOAT, yo + j, Math.fma(v, gv, bv));
        }
    }
}
