package dev.rlx.cpu.kernels;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * sin, cos, tan and atan on f32 vectors by adds, multiplies, divides and compares only (Cephes' single-precision
 * reductions and polynomials), so a kernel gives the same bits before and after C2 compiles it: the Vector API's
 * {@code lanewise(SIN/COS/TAN/ATAN)} is SVML once compiled and {@code Math} in its Java fallback, which round
 * differently. Errors are within 3 ulp (see VectorTranscendentalsTest); zeros keep their sign.
 *
 * <p>sin, cos and tan reduce by multiples of pi/4 with pi/4 split in three, exact for |x| up to {@link #REDUCE_MAX};
 * lanes beyond it (and NaN, infinities) are recomputed one by one with {@code StrictMath} ({@link #recompute}),
 * a rare path that may allocate.
 */
final class VectorTrig {
    private VectorTrig() {}

    private static final VectorSpecies<Float> F = VectorMath.F;

    static final float REDUCE_MAX = 8192f;
    private static final float FOPI = 1.27323954473516f; // 4/pi
    private static final float DP1 = 0.78515625f;
    private static final float DP2 = 2.4187564849853515625e-4f;
    private static final float DP3 = 3.77489497744594108e-8f;

    // sin(r) = r + r^3 s(r^2) and cos(r) = 1 - r^2/2 + r^4 c(r^2) on |r| <= pi/4 (Cephes sinf/cosf)
    private static final float S2 = -1.9515295891e-4f;
    private static final float S1 = 8.3321608736e-3f;
    private static final float S0 = -1.6666654611e-1f;
    private static final float C2 = 2.443315711809948e-5f;
    private static final float C1 = -1.388731625493765e-3f;
    private static final float C0 = 4.166664568298827e-2f;

    /**
     * Cephes' octant {@code j = trunc(|x| 4/pi)}, plus one where odd, as int lanes (F2I truncates as the C cast
     * does; lanes beyond {@link #REDUCE_MAX}, where the intrinsic and the fallback convert differently, are
     * recomputed).
     */
    private static IntVector octant(FloatVector a) {
        IntVector j = (IntVector) a.mul(FOPI).convert(VectorOperators.F2I, 0);
        return j.add(1).and(-2);
    }

    private static FloatVector asFloat(IntVector j) {
        return (FloatVector) j.convert(VectorOperators.I2F, 0);
    }

    /** a - j pi/4 in three exact steps, for j <= 2^13. */
    private static FloatVector reduce(FloatVector a, FloatVector j) {
        return a.sub(j.mul(DP1)).sub(j.mul(DP2)).sub(j.mul(DP3));
    }

    private static FloatVector sinPoly(FloatVector r, FloatVector z) {
        return z.fma(S2, S1).fma(z, FloatVector.broadcast(F, S0)).mul(z).fma(r, r);
    }

    private static FloatVector cosPoly(FloatVector z) {
        FloatVector p = z.fma(C2, C1).fma(z, FloatVector.broadcast(F, C0)).mul(z).mul(z);
        return p.sub(z.mul(0.5f)).add(1f);
    }

    /** sin(x) for |x| <= {@link #REDUCE_MAX}; other lanes hold garbage ({@link #sin} fixes them). */
    static FloatVector sinReduced(FloatVector x) {
        FloatVector a = x.abs();
        IntVector j = octant(a);
        FloatVector y = octantPoly(a, j, j);
        // j mod 8 is 0, 2, 4 or 6: bit 2 flips the sign, and so does a negative x; zeros keep their sign
        VectorMask<Float> flip = asFloat(j.and(4)).compare(VectorOperators.NE, 0f).xor(x.compare(VectorOperators.LT, 0f));
        return y.blend(y.neg(), flip).blend(x, a.compare(VectorOperators.EQ, 0f));
    }

    /** cos(x) for |x| <= {@link #REDUCE_MAX}: sin two octants on, {@code cos(a) = sin(a + pi/2)}, at the same r. */
    static FloatVector cosReduced(FloatVector x) {
        FloatVector a = x.abs();
        IntVector j = octant(a);
        IntVector k = j.add(2);
        FloatVector y = octantPoly(a, j, k);
        return y.blend(y.neg(), asFloat(k.and(4)).compare(VectorOperators.NE, 0f));
    }

    /** The sine (bit 1 of k clear) or cosine (set) polynomial at r = a - j pi/4. */
    private static FloatVector octantPoly(FloatVector a, IntVector j, IntVector k) {
        FloatVector r = reduce(a, asFloat(j));
        FloatVector z = r.mul(r);
        return sinPoly(r, z).blend(cosPoly(z), asFloat(k.and(2)).compare(VectorOperators.NE, 0f));
    }

    // tan(r) = r + r^3 t(r^2) on |r| <= pi/4 (Cephes tanf)
    private static final float T5 = 9.38540185543e-3f;
    private static final float T4 = 3.11992232697e-3f;
    private static final float T3 = 2.44301354525e-2f;
    private static final float T2 = 5.34112807005e-2f;
    private static final float T1 = 1.33387994085e-1f;
    private static final float T0 = 3.33331568548e-1f;

    /** tan(x) for |x| <= {@link #REDUCE_MAX}; other lanes hold garbage ({@link #tan} fixes them). */
    static FloatVector tanReduced(FloatVector x) {
        FloatVector a = x.abs();
        IntVector j = octant(a);
        FloatVector r = reduce(a, asFloat(j));
        FloatVector z = r.mul(r);
        FloatVector p = z.fma(T5, T4).fma(z, FloatVector.broadcast(F, T3)).fma(z, FloatVector.broadcast(F, T2))
                .fma(z, FloatVector.broadcast(F, T1)).fma(z, FloatVector.broadcast(F, T0)).mul(z).fma(r, r);
        p = p.blend(r, a.compare(VectorOperators.LT, 1e-4f));
        // odd quarter periods (bit 1 of j) give -1/tan(r)
        FloatVector y = p.blend(FloatVector.broadcast(F, -1f).div(p), asFloat(j.and(2)).compare(VectorOperators.NE, 0f));
        y = y.blend(y.neg(), x.compare(VectorOperators.LT, 0f)).blend(x, a.compare(VectorOperators.EQ, 0f));
        return y;
    }

    private static final float TAN3PI8 = 2.414213562373095f;
    private static final float TANPI8 = 0.4142135623730950f;
    private static final float PIO2 = 1.5707963267948966f;
    private static final float PIO4 = 0.7853981633974483f;

    /** atan(x): Cephes atanf, about 2 ulp; +-pi/2 at +-inf, NaN for NaN. */
    static FloatVector atan(FloatVector x) {
        FloatVector a = x.abs();
        VectorMask<Float> far = a.compare(VectorOperators.GT, TAN3PI8);
        VectorMask<Float> mid = a.compare(VectorOperators.GT, TANPI8).andNot(far);
        FloatVector t = a.blend(a.sub(1f).div(a.add(1f)), mid).blend(FloatVector.broadcast(F, -1f).div(a), far);
        FloatVector base = FloatVector.zero(F).blend(PIO4, mid).blend(PIO2, far);
        FloatVector z = t.mul(t);
        FloatVector p = z.fma(8.05374449538e-2f, -1.38776856032e-1f).fma(z, FloatVector.broadcast(F, 1.99777106478e-1f))
                .fma(z, FloatVector.broadcast(F, -3.33329491539e-1f)).mul(z).fma(t, t);
        FloatVector y = base.add(p);
        return y.blend(y.neg(), x.compare(VectorOperators.LT, 0f)).blend(x, a.compare(VectorOperators.EQ, 0f)); // -0 too
    }

    /** sin(x) for every float: {@link #sinReduced}, with lanes beyond the reduction's range by {@code StrictMath}. */
    static FloatVector sin(FloatVector x) {
        FloatVector y = sinReduced(x);
        return beyondReduction(x) ? recompute(x, y, UnaryFn.SIN) : y; // the call only where needed
    }

    static FloatVector cos(FloatVector x) {
        FloatVector y = cosReduced(x);
        return beyondReduction(x) ? recompute(x, y, UnaryFn.COS) : y; // the call only where needed
    }

    static FloatVector tan(FloatVector x) {
        FloatVector y = tanReduced(x);
        return beyondReduction(x) ? recompute(x, y, UnaryFn.TAN) : y; // the call only where needed
    }

    /** Whether a lane of {@code x} is beyond {@link #REDUCE_MAX} (or NaN): the rare case a loop patches. */
    static boolean beyondReduction(FloatVector x) {
        return !x.abs().compare(VectorOperators.LE, REDUCE_MAX).allTrue();
    }

    /** Whether any of {@code x[xo, xo + n)} is beyond {@link #REDUCE_MAX} or NaN ({@code n} a multiple of the lanes). */
    static boolean anyBeyondReduction(java.lang.foreign.MemorySegment x, long xo, int n) {
        for (int j = 0; j < n; j += F.length()) {
            if (beyondReduction(FloatVector.fromMemorySegment(F, x, (xo + j) * 4, java.nio.ByteOrder.LITTLE_ENDIAN))) {
                return true;
            }
        }
        return false;
    }

    private static float strict(UnaryFn fn, double v) {
        return (float) switch (fn) {
            case SIN -> StrictMath.sin(v);
            case COS -> StrictMath.cos(v);
            case TAN -> StrictMath.tan(v);
        };
    }

    /** The functions {@link #strictLanes} recomputes. */
    enum UnaryFn { SIN, COS, TAN }

    /** {@code y} with the lanes where |x| is beyond {@link #REDUCE_MAX} (or NaN) recomputed by {@code StrictMath}. */
    private static FloatVector recompute(FloatVector x, FloatVector y, UnaryFn fn) {
        FloatVector out = y;
        for (int i = 0; i < x.length(); i++) {
            float v = x.lane(i);
            if (!(Math.abs(v) <= REDUCE_MAX)) {
                out = out.withLane(i, strict(fn, v));
            }
        }
        return out;
    }
}
