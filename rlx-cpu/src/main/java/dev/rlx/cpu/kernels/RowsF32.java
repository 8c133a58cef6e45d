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
    private static final int W = F.length();
    /**
     * Lane indices {@code i ^ h} for h = W/2, W/4, ..., 1: {@code t.add(idx.selectFrom(t, t))} over these sums a
     * vector in a fixed tree, the same bits compiled or not ({@code reduceLanes(ADD)} adds in a tree once C2
     * compiles it and in lane order before). Inline at each use: a helper C2 does not inline boxes the vector.
     */
    private static final FloatVector[] HALVING = halving();

    private static FloatVector[] halving() {
        int steps = Integer.numberOfTrailingZeros(W);
        FloatVector[] out = new FloatVector[steps];
        for (int s = 0; s < steps; s++) {
            int h = W >> (s + 1);
            float[] idx = new float[W];
            for (int i = 0; i < W; i++) {
                idx[i] = i ^ h;
            }
            out[s] = FloatVector.fromArray(F, idx, 0);
        }
        return out;
    }
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    /**
     * Elements summed in float lanes before the partial sum moves to double (a multiple of any lane count):
     * at 16 lanes each lane adds 256 values of a block. 4096 keeps a 16 KB row in one block; at 1024 the
     * per-block reductions and loop restarts cost an RMS norm over 4096-wide rows about 10%.
     */
    static final int BLOCK = 4096;

    // One loop per sum, not one loop dispatching on the term: a vector passed through a shared helper or a
    // switch is boxed once C2 stops inlining it, and these loops run over every softmax and norm row.

    /** Sum of {@code x[xo .. xo+len)}. */
    static double sum(MemorySegment x, long xo, int len) {
        return sumShifted(x, xo, len, 0f);
    }

    /**
     * Sum of {@code x - shift}: with a shift near the values (e.g. the row's first element, for a mean),
     * the float lanes add small numbers, so a large common offset costs no precision.
     */
    static double sumShifted(MemorySegment x, long xo, int len, float shift) {
        double total = 0;
        for (int b = 0; b < len; b += BLOCK) {
            int end = Math.min(len, b + BLOCK);
            int bound = b + F.loopBound(end - b);
            FloatVector acc = FloatVector.zero(F);
            int j = b;
            for (int bound4 = b + (bound - b) / (4 * W) * (4 * W); j < bound4; j += 4 * W) {
                long at = (xo + j) * 4;
                FloatVector v0 = FloatVector.fromMemorySegment(F, x, at, LE).sub(shift);
                FloatVector v1 = FloatVector.fromMemorySegment(F, x, at + 4L * W, LE).sub(shift);
                FloatVector v2 = FloatVector.fromMemorySegment(F, x, at + 8L * W, LE).sub(shift);
                FloatVector v3 = FloatVector.fromMemorySegment(F, x, at + 12L * W, LE).sub(shift);
                acc = acc.add(v0.add(v1).add(v2.add(v3)));
            }
            for (; j < bound; j += W) {
                acc = acc.add(FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE).sub(shift));
            }
            float part = VectorMath.sumLanes(acc);
            for (; j < end; j++) {
                part += x.getAtIndex(JAVA_FLOAT, xo + j) - shift;
            }
            total += part;
        }
        return total;
    }

    /** Sum of {@code (x - mean)^2}: the second pass of a two-pass variance (a sum of squares for mean 0). */
    static double sumSquaredDeviations(MemorySegment x, long xo, int len, float mean) {
        double total = 0;
        for (int b = 0; b < len; b += BLOCK) {
            int end = Math.min(len, b + BLOCK);
            int bound = b + F.loopBound(end - b);
            FloatVector acc = FloatVector.zero(F);
            int j = b;
            for (int bound4 = b + (bound - b) / (4 * W) * (4 * W); j < bound4; j += 4 * W) {
                long at = (xo + j) * 4;
                FloatVector d0 = FloatVector.fromMemorySegment(F, x, at, LE).sub(mean);
                FloatVector d1 = FloatVector.fromMemorySegment(F, x, at + 4L * W, LE).sub(mean);
                FloatVector d2 = FloatVector.fromMemorySegment(F, x, at + 8L * W, LE).sub(mean);
                FloatVector d3 = FloatVector.fromMemorySegment(F, x, at + 12L * W, LE).sub(mean);
                acc = acc.add(d0.mul(d0).add(d1.mul(d1)).add(d2.mul(d2).add(d3.mul(d3))));
            }
            for (; j < bound; j += W) {
                FloatVector d = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE).sub(mean);
                acc = d.fma(d, acc);
            }
            float part = VectorMath.sumLanes(acc);
            for (; j < end; j++) {
                float d = x.getAtIndex(JAVA_FLOAT, xo + j) - mean;
                part += d * d;
            }
            total += part;
        }
        return total;
    }

    /**
     * Writes {@code y = exp(x - shift)} and returns its sum (softmax with the row max as shift, so every
     * exponent is <= 0: {@link VectorMath#expNonPositive}).
     */
    static double expShiftedSum(MemorySegment x, long xo, MemorySegment y, long yo, int len, float shift) {
        double total = 0;
        for (int b = 0; b < len; b += BLOCK) {
            int end = Math.min(len, b + BLOCK);
            int bound = b + F.loopBound(end - b);
            FloatVector acc = FloatVector.zero(F);
            int j = b;
            for (int bound2 = b + (bound - b) / (2 * W) * (2 * W); j < bound2; j += 2 * W) {
                FloatVector x0 = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE);
                FloatVector x1 = FloatVector.fromMemorySegment(F, x, (xo + j + W) * 4, LE);
                FloatVector e0 = VectorMath.expNonPositive(x0.sub(shift), y, (yo + j) * 4);
                FloatVector e1 = VectorMath.expNonPositive(x1.sub(shift), y, (yo + j + W) * 4);
                e0.intoMemorySegment(y, (yo + j) * 4, LE);
                e1.intoMemorySegment(y, (yo + j + W) * 4, LE);
                acc = acc.add(e0.add(e1));
            }
            // no one-vector loop here: a third inlined vector exp put the method past C2's node budget on
            // AVX2 (where rows such as 40 = 2 * 16 + 8 reach it) and the call boxed its vectors
            FloatVector t = acc;
            for (FloatVector idx : HALVING) {
                t = t.add(idx.selectFrom(t, t));
            }
            float part = t.lane(0);
            for (; j < end; j++) {
                float e = VectorMath.expNonPositive(x.getAtIndex(JAVA_FLOAT, xo + j) - shift);
                y.setAtIndex(JAVA_FLOAT, yo + j, e);
                part += e;
            }
            total += part;
        }
        return total;
    }

    /**
     * {@link #expShiftedSum} of the row at {@code xo} fused with {@link #extreme largest} of the next row at
     * {@code next} (same length): the next row's loads from memory overlap this row's exp. Returns both
     * packed by {@link #packed}: the sum (rounded to float) high, the next row's max low.
     */
    static long expShiftedSumNextMax(MemorySegment x, long xo, MemorySegment y, long yo, int len, float shift,
                                     long next) {
        double total = 0;
        FloatVector max = FloatVector.broadcast(F, Float.NEGATIVE_INFINITY);
        float tailMax = Float.NEGATIVE_INFINITY;
        for (int b = 0; b < len; b += BLOCK) {
            int end = Math.min(len, b + BLOCK);
            int bound = b + F.loopBound(end - b);
            FloatVector acc = FloatVector.zero(F);
            int j = b;
            for (; j < bound; j += W) {
                FloatVector e = VectorMath.expNonPositive(FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE)
                        .sub(shift), y, (yo + j) * 4);
                e.intoMemorySegment(y, (yo + j) * 4, LE);
                acc = acc.add(e);
                // compare and blend, not max(): Java's max (NaN and -0 rules) costs several instructions more,
                // and a NaN it would skip reaches the sum anyway (exp(NaN - m) is NaN, so the row is NaN)
                FloatVector u = FloatVector.fromMemorySegment(F, x, (next + j) * 4, LE);
                max = max.blend(u, max.compare(VectorOperators.LT, u));
            }
            FloatVector t = acc;
            for (FloatVector idx : HALVING) {
                t = t.add(idx.selectFrom(t, t));
            }
            float part = t.lane(0);
            for (; j < end; j++) {
                float e = VectorMath.expNonPositive(x.getAtIndex(JAVA_FLOAT, xo + j) - shift);
                y.setAtIndex(JAVA_FLOAT, yo + j, e);
                part += e;
                tailMax = Math.max(tailMax, x.getAtIndex(JAVA_FLOAT, next + j));
            }
            total += part;
        }
        return packed((float) total, Math.max(max.reduceLanes(VectorOperators.MAX), tailMax));
    }

    /** Two floats in a long (no allocation for a second result): {@code high} in the upper half. */
    static long packed(float high, float low) {
        return (long) Float.floatToRawIntBits(high) << 32 | Float.floatToRawIntBits(low) & 0xFFFF_FFFFL;
    }

    static float high(long packed) {
        return Float.intBitsToFloat((int) (packed >>> 32));
    }

    static float low(long packed) {
        return Float.intBitsToFloat((int) packed);
    }

    /**
     * {@link #normalize} of the row at {@code xo} fused with {@link #sumShifted} of the next row at
     * {@code next} (same length) by {@code nextShift}, which it returns: the next row's loads from memory
     * overlap this row's stores, where two separate passes would leave memory idle half the time.
     */
    static double normalizeThenSum(MemorySegment x, long xo, MemorySegment y, long yo, int len, float shift,
                                   float scale, MemorySegment g, long go, MemorySegment b, long bo, long next,
                                   float nextShift) {
        double total = 0;
        for (int blk = 0; blk < len; blk += BLOCK) {
            int end = Math.min(len, blk + BLOCK);
            int bound = blk + F.loopBound(end - blk);
            FloatVector acc = FloatVector.zero(F);
            int j = blk;
            for (; j < bound; j += W) {
                FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE).sub(shift).mul(scale);
                FloatVector gv = FloatVector.fromMemorySegment(F, g, (go + j) * 4, LE);
                if (b == null) {
                    v.mul(gv).intoMemorySegment(y, (yo + j) * 4, LE);
                } else {
                    v.fma(gv, FloatVector.fromMemorySegment(F, b, (bo + j) * 4, LE))
                            .intoMemorySegment(y, (yo + j) * 4, LE);
                }
                acc = acc.add(FloatVector.fromMemorySegment(F, x, (next + j) * 4, LE).sub(nextShift));
            }
            float part = VectorMath.sumLanes(acc);
            for (; j < end; j++) {
                part += x.getAtIndex(JAVA_FLOAT, next + j) - nextShift;
            }
            total += part;
            normalizeTail(x, xo, y, yo, bound, end, shift, scale, g, go, b, bo);
        }
        return total;
    }

    /**
     * {@link #normalize} (no bias) of the row at {@code xo} fused with {@link #sumSquaredDeviations} about 0
     * of the next row at {@code next}, which it returns: an RMS norm's two passes over consecutive rows.
     */
    static double normalizeThenSumSquares(MemorySegment x, long xo, MemorySegment y, long yo, int len, float scale,
                                          MemorySegment g, long go, long next) {
        double total = 0;
        for (int blk = 0; blk < len; blk += BLOCK) {
            int end = Math.min(len, blk + BLOCK);
            int bound = blk + F.loopBound(end - blk);
            FloatVector acc = FloatVector.zero(F);
            FloatVector acc2 = FloatVector.zero(F); // two chains: one FMA chain held the loop to its latency
            int j = blk;
            for (int bound2 = blk + (bound - blk) / (2 * W) * (2 * W); j < bound2; j += 2 * W) {
                FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE).mul(scale);
                v.mul(FloatVector.fromMemorySegment(F, g, (go + j) * 4, LE)).intoMemorySegment(y, (yo + j) * 4, LE);
                FloatVector v2 = FloatVector.fromMemorySegment(F, x, (xo + j + W) * 4, LE).mul(scale);
                v2.mul(FloatVector.fromMemorySegment(F, g, (go + j + W) * 4, LE)).intoMemorySegment(y, (yo + j + W) * 4, LE);
                FloatVector u = FloatVector.fromMemorySegment(F, x, (next + j) * 4, LE);
                FloatVector u2 = FloatVector.fromMemorySegment(F, x, (next + j + W) * 4, LE);
                acc = u.fma(u, acc);
                acc2 = u2.fma(u2, acc2);
            }
            for (; j < bound; j += W) {
                FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE).mul(scale);
                v.mul(FloatVector.fromMemorySegment(F, g, (go + j) * 4, LE)).intoMemorySegment(y, (yo + j) * 4, LE);
                FloatVector u = FloatVector.fromMemorySegment(F, x, (next + j) * 4, LE);
                acc = u.fma(u, acc);
            }
            float part = VectorMath.sumLanes(acc.add(acc2));
            for (; j < end; j++) {
                float u = x.getAtIndex(JAVA_FLOAT, next + j);
                part += u * u;
            }
            total += part;
            normalizeTail(x, xo, y, yo, bound, end, 0f, scale, g, go, null, 0);
        }
        return total;
    }

    /** The scalar elements {@code [from, to)} of {@link #normalize}. */
    private static void normalizeTail(MemorySegment x, long xo, MemorySegment y, long yo, int from, int to,
                                      float shift, float scale, MemorySegment g, long go, MemorySegment b, long bo) {
        for (int j = from; j < to; j++) {
            float v = (x.getAtIndex(JAVA_FLOAT, xo + j) - shift) * scale;
            float bv = b == null ? 0f : b.getAtIndex(JAVA_FLOAT, bo + j);
            y.setAtIndex(JAVA_FLOAT, yo + j, Math.fma(v, g.getAtIndex(JAVA_FLOAT, go + j), bv));
        }
    }

    /**
     * {@code y[yo+j] = (x[xo+j] - shift) * scale * g[go+j] (+ b[bo+j])}: a layer or RMS norm's output; no
     * bias when {@code b} is null. {@code y} may be {@code x}.
     */
    static void normalize(MemorySegment x, long xo, MemorySegment y, long yo, int len, float shift, float scale,
                          MemorySegment g, long go, MemorySegment b, long bo) {
        int j = 0;
        int bound = F.loopBound(len);
        if (b == null) {
            for (; j < bound; j += F.length()) {
                FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE).sub(shift).mul(scale);
                FloatVector gv = FloatVector.fromMemorySegment(F, g, (go + j) * 4, LE);
                v.mul(gv).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        } else {
            for (; j < bound; j += F.length()) {
                FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE).sub(shift).mul(scale);
                FloatVector gv = FloatVector.fromMemorySegment(F, g, (go + j) * 4, LE);
                FloatVector bv = FloatVector.fromMemorySegment(F, b, (bo + j) * 4, LE);
                v.fma(gv, bv).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        }
        normalizeTail(x, xo, y, yo, j, len, shift, scale, g, go, b, bo);
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
        int bound = F.loopBound(len);
        for (int bound4 = bound / (4 * W) * (4 * W); j < bound4; j += 4 * W) {
            long at = (xo + j) * 4;
            // lane-wise Math.max (NaN propagates), several instructions deep in Java: a tree of four per step
            // keeps the one loop-carried chain short
            FloatVector v0 = FloatVector.fromMemorySegment(F, x, at, LE).mul(sign);
            FloatVector v1 = FloatVector.fromMemorySegment(F, x, at + 4L * W, LE).mul(sign);
            FloatVector v2 = FloatVector.fromMemorySegment(F, x, at + 8L * W, LE).mul(sign);
            FloatVector v3 = FloatVector.fromMemorySegment(F, x, at + 12L * W, LE).mul(sign);
            acc = acc.max(v0.max(v1).max(v2.max(v3)));
        }
        for (; j < bound; j += W) {
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

    /** {@code y[yo+j] = (x[xo+j] - shift) * scale * g + b} for constants g, b. {@code y} may be {@code x}. */
    static void affine(MemorySegment x, long xo, MemorySegment y, long yo, int len, float shift, float scale, float g,
                       float b) {
        int j = 0;
        for (int bound = F.loopBound(len); j < bound; j += F.length()) {
            FloatVector v = FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE).sub(shift).mul(scale);
            v.mul(g).add(b).intoMemorySegment(y, (yo + j) * 4, LE);
        }
        for (; j < len; j++) {
            y.setAtIndex(JAVA_FLOAT, yo + j, Math.fma((x.getAtIndex(JAVA_FLOAT, xo + j) - shift) * scale, g, b));
        }
    }
}
