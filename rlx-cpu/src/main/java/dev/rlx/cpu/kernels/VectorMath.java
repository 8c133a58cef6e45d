package dev.rlx.cpu.kernels;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Float functions for the Vector API that it lacks or that need care: exp for softmax, erf (and so exact GELU).
 * The species is chosen once at run time ({@link #F}); every function has a scalar twin used for loop tails
 * and as the readable reference.
 *
 * <p>No {@code reinterpretAs...}, {@code viewAs...}, {@code toShuffle} or one-vector {@code selectFrom} here or
 * in any kernel: until C2 has compiled them, the Vector API runs those through a heap byte segment (its
 * fallback for a reinterpretation), and once any heap segment shows up in the JDK's shared vector load/store profile, C2
 * compiles every vector store to a native segment compiled afterwards, in every kernel of the process, as a
 * mixed heap/native access: a 4096-element store loop ran 6-10x slower, and a 2-thread element-wise chain
 * compiled after the first softmax ran at 0.26-0.57 of a copy instead of 0.65-0.89.
 * {@code VectorApiHygieneTest} keeps these calls out of the main sources.
 */
public final class VectorMath {
    private VectorMath() {}

    /** The widest float species this CPU runs natively (512-bit on AVX-512, 256 on AVX2, 128 on NEON). */
    public static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    /** Int lanes of the same shape as {@link #F}. */
    static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;

    // exp by Cody-Waite reduction, x = k ln2 + r with |r| <= ln2/2 (ln2 split in two for an exact k ln2), then
    // exp(r) = 1 + r + r^2 q(r) with q of degree 4, scaled by 2^k. q's coefficients are a minimax fit (Lawson's
    // iteration on 20001 points) of the relative error over |r| <= ln2/2: 3.1e-9 before float rounding, so the
    // float arithmetic dominates. Cephes expf's degree-5 q is as accurate here and costs one FMA more.
    private static final float LOG2E = 1.44269504f;
    private static final float LN2_HI = 0.693359375f;
    private static final float LN2_LO = -2.12194440e-4f;
    private static final float ROUND = 12582912f; // 1.5 * 2^23: adding and subtracting it rounds to an integer
    private static final float EXP_MIN = -87.3f;  // below this exp(x) is subnormal: returned as 0
    private static final float Q4 = 1.3814593033e-3f;
    private static final float Q3 = 8.3687083625e-3f;
    private static final float Q2 = 4.1668387524e-2f;
    private static final float Q1 = 1.6666520702e-1f;
    private static final float Q0 = 4.9999993452e-1f;

    /**
     * exp(x) for x <= 0 (softmax's max-shifted scores): relative error under 1e-7 (measured max 8.3e-8 over
     * [-87, 0]), 0 below -87.3 and for -inf, NaN for NaN. All FMAs, no call (SVML's EXP is a stub call that
     * spills every live vector): x = k ln2 + r with k = round(x log2e) and |r| <= ln2/2, exp(r) by a
     * polynomial, 2^k built as float bits {@code (k + 127) << 23}. Those int bits become a float through
     * memory: stored as ints to {@code via[at, at + vector bytes)} and loaded back as floats, where the
     * caller is about to store the result anyway (no {@code reinterpretAs}, see the class comment; 25% faster
     * than building 2^k from in-register tables). {@code via} must be a native segment the caller writes.
     */
    public static FloatVector expNonPositive(FloatVector x, MemorySegment via, long at) {
        VectorMask<Float> under = x.compare(VectorOperators.LT, EXP_MIN);
        FloatVector k = x.fma(FloatVector.broadcast(F, LOG2E), FloatVector.broadcast(F, ROUND)).sub(ROUND);
        FloatVector r = k.fma(FloatVector.broadcast(F, -LN2_HI), x);
        r = k.fma(FloatVector.broadcast(F, -LN2_LO), r);
        FloatVector p = r.fma(FloatVector.broadcast(F, Q4), FloatVector.broadcast(F, Q3));
        p = p.fma(r, FloatVector.broadcast(F, Q2));
        p = p.fma(r, FloatVector.broadcast(F, Q1));
        p = p.fma(r, FloatVector.broadcast(F, Q0));
        p = p.fma(r.mul(r), r); // exp(r) - 1: the + 1 goes into the last FMA
        ((IntVector) k.convert(VectorOperators.F2I, 0)).add(127).lanewise(VectorOperators.LSHL, 23)
                .intoMemorySegment(via, at, ByteOrder.LITTLE_ENDIAN);
        FloatVector twoK = FloatVector.fromMemorySegment(F, via, at, ByteOrder.LITTLE_ENDIAN);
        return p.fma(twoK, twoK).blend(0f, under);
    }

    /**
     * The scalar twin of {@link #expNonPositive}: the same FMAs on one lane, so a row's tail gets the bits its
     * vector body would give, and no library exp whose result may change with the JIT tier.
     */
    public static float expNonPositive(float x) {
        if (x < EXP_MIN) {
            return 0f;
        }
        float k = Math.fma(x, LOG2E, ROUND) - ROUND;
        float r = Math.fma(k, -LN2_HI, x);
        r = Math.fma(k, -LN2_LO, r);
        float p = Math.fma(r, Q4, Q3);
        p = Math.fma(p, r, Q2);
        p = Math.fma(p, r, Q1);
        p = Math.fma(p, r, Q0);
        p = Math.fma(p, r * r, r);
        float twoK = Float.intBitsToFloat(((int) k + 127) << 23);
        return Math.fma(p, twoK, twoK);
    }

    // exp over the whole float range, in registers only (for fused programs, which have no memory to build 2^k in):
    // the same reduction and polynomial as expNonPositive, 2^(k-1) built exactly from k's binary digits by masked
    // multiplies by 2^(2^i), then doubled. Below EXP_FULL_MIN (where 2^(k-1) would be subnormal) the result is 0;
    // above EXP_FULL_MAX (ln of the largest float) +inf.
    private static final float EXP_FULL_MIN = -86.9f;
    private static final float EXP_FULL_MAX = 88.72283f;

    /**
     * exp(x) for every float, relative error about 1e-7 (0 below -86.9, +inf above 88.72283, NaN for NaN), by FMAs,
     * compares and masked multiplies only. Unlike {@code lanewise(EXP)}, whose SVML intrinsic and Java fallback
     * (interpreter, C1) round differently, it gives the same bits before and after the JIT compiles its caller.
     */
    public static FloatVector exp(FloatVector x) {
        VectorMask<Float> under = x.compare(VectorOperators.LT, EXP_FULL_MIN);
        VectorMask<Float> over = x.compare(VectorOperators.GT, EXP_FULL_MAX);
        FloatVector xc = x.max(EXP_FULL_MIN).min(EXP_FULL_MAX); // NaN stays NaN
        FloatVector k = xc.fma(FloatVector.broadcast(F, LOG2E), FloatVector.broadcast(F, ROUND)).sub(ROUND);
        FloatVector r = k.fma(FloatVector.broadcast(F, -LN2_HI), xc);
        r = k.fma(FloatVector.broadcast(F, -LN2_LO), r);
        FloatVector p = r.fma(FloatVector.broadcast(F, Q4), FloatVector.broadcast(F, Q3));
        p = p.fma(r, FloatVector.broadcast(F, Q2));
        p = p.fma(r, FloatVector.broadcast(F, Q1));
        p = p.fma(r, FloatVector.broadcast(F, Q0));
        p = p.fma(r.mul(r), r); // exp(r) - 1
        FloatVector half = pow2Minus1(k);
        FloatVector y = p.fma(half, half).mul(2f);
        return y.blend(0f, under).blend(Float.POSITIVE_INFINITY, over);
    }

    /**
     * 2^(k - 1) for integer-valued k in [-125, 128], exactly: t = k + 125 in [0, 253] taken apart into binary digits,
     * each digit multiplying 2^-126 by its power of two (2^128 as two halves). Every product is exact and stays
     * normal, so the order of the multiplies cannot change a bit.
     */
    private static FloatVector pow2Minus1(FloatVector k) {
        FloatVector t = k.add(125f);
        FloatVector s = FloatVector.broadcast(F, 0x1p-126f);
        VectorMask<Float> m = t.compare(VectorOperators.GE, 128f);
        t = t.lanewise(VectorOperators.SUB, 128f, m);
        s = s.lanewise(VectorOperators.MUL, 0x1p64f, m).lanewise(VectorOperators.MUL, 0x1p64f, m);
        m = t.compare(VectorOperators.GE, 64f);
        t = t.lanewise(VectorOperators.SUB, 64f, m);
        s = s.lanewise(VectorOperators.MUL, 0x1p64f, m);
        m = t.compare(VectorOperators.GE, 32f);
        t = t.lanewise(VectorOperators.SUB, 32f, m);
        s = s.lanewise(VectorOperators.MUL, 0x1p32f, m);
        m = t.compare(VectorOperators.GE, 16f);
        t = t.lanewise(VectorOperators.SUB, 16f, m);
        s = s.lanewise(VectorOperators.MUL, 0x1p16f, m);
        m = t.compare(VectorOperators.GE, 8f);
        t = t.lanewise(VectorOperators.SUB, 8f, m);
        s = s.lanewise(VectorOperators.MUL, 0x1p8f, m);
        m = t.compare(VectorOperators.GE, 4f);
        t = t.lanewise(VectorOperators.SUB, 4f, m);
        s = s.lanewise(VectorOperators.MUL, 0x1p4f, m);
        m = t.compare(VectorOperators.GE, 2f);
        t = t.lanewise(VectorOperators.SUB, 2f, m);
        s = s.lanewise(VectorOperators.MUL, 0x1p2f, m);
        return s.lanewise(VectorOperators.MUL, 2f, t.compare(VectorOperators.GE, 1f));
    }

    /**
     * tanh(x) by {@link #exp} (Cephes tanhf): {@code 1 - 2/(exp(2|x|) + 1)} with the sign of x for |x| >= 0.625,
     * an odd polynomial below, where the subtraction would cancel. About 2 ulp; +-1 at +-inf, NaN for NaN. The same
     * bits in every JIT tier, unlike {@code lanewise(TANH)}.
     */
    public static FloatVector tanh(FloatVector x) {
        FloatVector a = x.abs();
        FloatVector big = FloatVector.broadcast(F, 1f).sub(FloatVector.broadcast(F, 2f).div(exp(a.add(a)).add(1f)));
        big = big.blend(big.neg(), x.compare(VectorOperators.LT, 0f));
        FloatVector s = x.mul(x);
        FloatVector small = s.fma(-5.70498872745e-3f, 2.06390887954e-2f).fma(s, FloatVector.broadcast(F, -5.37397155531e-2f))
                .fma(s, FloatVector.broadcast(F, 1.33314422036e-1f)).fma(s, FloatVector.broadcast(F, -3.33332819422e-1f))
                .mul(s).fma(x, x);
        return small.blend(big, a.compare(VectorOperators.GE, 0.625f)).blend(x, a.compare(VectorOperators.EQ, 0f)); // -0
    }

    private static final float SQRT2 = 1.41421356f;

    /**
     * Natural log (Cephes logf): x = m 2^e with m in [sqrt(1/2), sqrt 2), then {@code e ln2 + log(m)} by a
     * polynomial in {@code m - 1}. Within 2 ulp from the smallest subnormal to the largest float; -inf at 0, NaN
     * below 0 and for NaN, +inf at +inf. m and e come from x's bits through memory: x is stored to
     * {@code via[at, at + vector bytes)} and loaded back as ints (no {@code reinterpretAs}, see the class comment),
     * where the caller is about to store the result anyway; subnormals are scaled by 2^24 first. The same bits in
     * every JIT tier, unlike {@code lanewise(LOG)}.
     */
    public static FloatVector log(FloatVector x, MemorySegment via, long at) {
        VectorMask<Float> sub = x.compare(VectorOperators.LT, 0x1p-126f);
        x.lanewise(VectorOperators.MUL, 0x1p24f, sub).intoMemorySegment(via, at, ByteOrder.LITTLE_ENDIAN);
        IntVector bits = IntVector.fromMemorySegment(I, via, at, ByteOrder.LITTLE_ENDIAN);
        FloatVector e = ((FloatVector) bits.lanewise(VectorOperators.LSHR, 23).and(0xff).sub(127)
                .convert(VectorOperators.I2F, 0)).lanewise(VectorOperators.SUB, 24f, sub);
        bits.and(0x7fffff).or(0x3f800000).intoMemorySegment(via, at, ByteOrder.LITTLE_ENDIAN);
        FloatVector m = FloatVector.fromMemorySegment(F, via, at, ByteOrder.LITTLE_ENDIAN);
        return logOf(x, m, e);
    }

    /** log(x) from x = m 2^e, m in [1, 2) exactly: m moved into [sqrt(1/2), sqrt 2), Cephes' polynomial, special values. */
    private static FloatVector logOf(FloatVector x, FloatVector m, FloatVector e) {
        VectorMask<Float> hi = m.compare(VectorOperators.GT, SQRT2);
        m = m.lanewise(VectorOperators.MUL, 0.5f, hi);
        e = e.lanewise(VectorOperators.ADD, 1f, hi);
        FloatVector f = m.sub(1f);
        FloatVector z = f.mul(f);
        FloatVector y = f.fma(7.0376836292e-2f, -1.1514610310e-1f).fma(f, FloatVector.broadcast(F, 1.1676998740e-1f))
                .fma(f, FloatVector.broadcast(F, -1.2420140846e-1f)).fma(f, FloatVector.broadcast(F, 1.4249322787e-1f))
                .fma(f, FloatVector.broadcast(F, -1.6668057665e-1f)).fma(f, FloatVector.broadcast(F, 2.0000714765e-1f))
                .fma(f, FloatVector.broadcast(F, -2.4999993993e-1f)).fma(f, FloatVector.broadcast(F, 3.3333331174e-1f))
                .mul(f).mul(z);
        y = e.fma(FloatVector.broadcast(F, LN2_LO), y);
        y = z.fma(FloatVector.broadcast(F, -0.5f), y);
        FloatVector r = f.add(y);
        r = e.fma(FloatVector.broadcast(F, LN2_HI), r);
        return r.blend(Float.NEGATIVE_INFINITY, x.compare(VectorOperators.EQ, 0f))
                .blend(Float.NaN, x.compare(VectorOperators.LT, 0f))
                .blend(Float.POSITIVE_INFINITY, x.compare(VectorOperators.EQ, Float.POSITIVE_INFINITY))
                .blend(x, x.test(VectorOperators.IS_NAN));
    }

    // Abramowitz & Stegun 7.1.26: |error| <= 1.5e-7 over the whole line.
    private static final float P = 0.3275911f;
    private static final float A1 = 0.254829592f;
    private static final float A2 = -0.284496736f;
    private static final float A3 = 1.421413741f;
    private static final float A4 = -1.453152027f;
    private static final float A5 = 1.061405429f;

    /** erf(x), absolute error at most 1.5e-7 (plus float rounding). */
    public static float erf(float x) {
        float a = Math.abs(x);
        float t = 1f / (1f + P * a);
        float y = 1f - (((((A5 * t + A4) * t) + A3) * t + A2) * t + A1) * t * (float) StrictMath.exp(-a * a);
        return Math.copySign(y, x);
    }

    public static FloatVector erf(FloatVector x) {
        FloatVector a = x.abs();
        FloatVector t = FloatVector.broadcast(F, 1f).div(a.fma(P, 1f));
        FloatVector poly = t.fma(A5, A4).fma(t, FloatVector.broadcast(F, A3)).fma(t, FloatVector.broadcast(F, A2))
                .fma(t, FloatVector.broadcast(F, A1)).mul(t);
        FloatVector e = exp(a.mul(a).neg());
        FloatVector y = poly.mul(e).neg().add(1f);
        // erf is odd: a blend, not a sign-bit copy (no reinterpretation, see the class comment)
        return y.blend(y.neg(), x.compare(VectorOperators.LT, 0f));
    }

    /**
     * {@link #erf(FloatVector)} with {@code exp(-x^2)} by {@link #expNonPositive} (2^k built in {@code via}, as
     * there): the same values (the two exps agree wherever 1 - erf is not already 1; a NaN may differ in sign), at
     * about a third of the cost of the register-only exp's masked multiplies. For loops that store their result to
     * native memory anyway. Written out rather than sharing a helper with {@link #erf(FloatVector)}: a shared
     * vector helper (tried: the polynomial and blend in one method for both) made the gelu and erf loops box every
     * vector, in AllocationFreeRunTest's JVM and in a probe, depending on what C2 had compiled first.
     */
    public static FloatVector erf(FloatVector x, MemorySegment via, long at) {
        FloatVector a = x.abs();
        FloatVector t = FloatVector.broadcast(F, 1f).div(a.fma(P, 1f));
        FloatVector poly = t.fma(A5, A4).fma(t, FloatVector.broadcast(F, A3)).fma(t, FloatVector.broadcast(F, A2))
                .fma(t, FloatVector.broadcast(F, A1)).mul(t);
        FloatVector y = poly.mul(expNonPositive(a.mul(a).neg(), via, at)).neg().add(1f);
        return y.blend(y.neg(), x.compare(VectorOperators.LT, 0f));
    }

    /** Exact GELU {@code 0.5 x (1 + erf(x / sqrt 2))} via {@link #erf}. */
    public static float gelu(float x) {
        return 0.5f * x * (1f + erf(x * 0.70710678f));
    }

    public static FloatVector gelu(FloatVector x) {
        return x.mul(0.5f).mul(erf(x.mul(0.70710678f)).add(1f));
    }

    /** {@link #gelu(FloatVector)}, the same values (a NaN's sign aside), through {@link #erf(FloatVector, MemorySegment, long)}. */
    public static FloatVector gelu(FloatVector x, MemorySegment via, long at) {
        return x.mul(0.5f).mul(erf(x.mul(0.70710678f), via, at).add(1f));
    }

    private static final float SQRT_2_OVER_PI = 0.7978845608f;

    /** tanh-approximate GELU. */
    public static float geluTanh(float x) {
        return 0.5f * x * (1f + (float) StrictMath.tanh(SQRT_2_OVER_PI * (x + 0.044715f * x * x * x)));
    }

    public static FloatVector geluTanh(FloatVector x) {
        FloatVector inner = x.mul(x).mul(x).mul(0.044715f).add(x).mul(SQRT_2_OVER_PI);
        // 0.5 (1 + tanh u) = sigmoid(2u): the deterministic exp instead of lanewise(TANH)
        return x.div(exp(inner.mul(-2f)).add(1f));
    }

    public static FloatVector silu(FloatVector x) {
        return x.div(exp(x.neg()).add(1f));
    }

    /**
     * The lanes of {@code v} added in lane order (0, 1, 2, ...). {@code reduceLanes(ADD)} leaves the order open:
     * C2's intrinsic adds in a tree while the Java fallback (interpreter, C1, {@code -Xint}) adds in order, so
     * a sum changed in its last bits once the JIT compiled the kernel. Lane extraction is exact in both.
     */
    public static float sumLanes(FloatVector v) {
        // Small methods with constant lane indices, so C2 inlines them and extracts each lane in a register; a
        // call it does not inline makes the vector a heap object (an allocation per call).
        return switch (v.length()) {
            case 16 -> sum16(v);
            case 8 -> sum8(v);
            case 4 -> sum4(v);
            default -> sumAny(v);
        };
    }

    private static float sum16(FloatVector v) {
        return v.lane(0) + v.lane(1) + v.lane(2) + v.lane(3) + v.lane(4) + v.lane(5) + v.lane(6) + v.lane(7)
                + v.lane(8) + v.lane(9) + v.lane(10) + v.lane(11) + v.lane(12) + v.lane(13) + v.lane(14) + v.lane(15);
    }

    private static float sum8(FloatVector v) {
        return v.lane(0) + v.lane(1) + v.lane(2) + v.lane(3) + v.lane(4) + v.lane(5) + v.lane(6) + v.lane(7);
    }

    private static float sum4(FloatVector v) {
        return v.lane(0) + v.lane(1) + v.lane(2) + v.lane(3);
    }

    private static float sumAny(FloatVector v) {
        float s = v.lane(0);
        for (int i = 1; i < v.length(); i++) {
            s += v.lane(i);
        }
        return s;
    }

    /** -1, 0 or 1 by sign; zeros (keeping their sign) and NaN pass through. */
    public static FloatVector sign(FloatVector v) {
        return FloatVector.zero(F).blend(1f, v.compare(VectorOperators.GT, 0f))
                .blend(-1f, v.compare(VectorOperators.LT, 0f))
                .blend(v, v.compare(VectorOperators.EQ, 0f).or(v.test(VectorOperators.IS_NAN)));
    }

    public static float sigmoid(float x) {
        return 1f / (1f + (float) StrictMath.exp(-x));
    }

    public static FloatVector sigmoid(FloatVector x) {
        return FloatVector.broadcast(F, 1f).div(exp(x.neg()).add(1f));
    }
}
