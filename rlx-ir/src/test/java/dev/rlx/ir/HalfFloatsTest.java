package dev.rlx.ir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * f16 and bf16 conversions against references computed here from the formats' bit layouts: exact decoding,
 * round-to-nearest-even on every tie, NaN/infinity/signed zero handling.
 */
class HalfFloatsTest {

    // ---------------------------------------------------------------- independent decoders

    /** binary16: 1 sign, 5 exponent (bias 15), 10 fraction bits. */
    static double f16Value(int bits) {
        int exp = (bits >>> 10) & 0x1F;
        int frac = bits & 0x3FF;
        double sign = (bits & 0x8000) != 0 ? -1 : 1;
        if (exp == 0x1F) {
            return frac == 0 ? sign * Double.POSITIVE_INFINITY : Double.NaN;
        }
        return exp == 0 ? sign * Math.scalb((double) frac, -24) : sign * Math.scalb((double) (1024 + frac), exp - 25);
    }

    /** bfloat16: 1 sign, 8 exponent (bias 127), 7 fraction bits. */
    static double bf16Value(int bits) {
        int exp = (bits >>> 7) & 0xFF;
        int frac = bits & 0x7F;
        double sign = (bits & 0x8000) != 0 ? -1 : 1;
        if (exp == 0xFF) {
            return frac == 0 ? sign * Double.POSITIVE_INFINITY : Double.NaN;
        }
        return exp == 0 ? sign * Math.scalb((double) frac, -133) : sign * Math.scalb((double) (128 + frac), exp - 134);
    }

    /**
     * The value of non-negative pattern {@code i}; for the infinity pattern, the value one step past the
     * largest finite one (2^16 for f16, 2^128 for bf16), which is where rounding overflows to infinity.
     */
    static double magnitude(boolean bf16, int i) {
        int inf = bf16 ? 0x7F80 : 0x7C00;
        if (i == inf) {
            return bf16 ? 0x1p128 : 0x1p16;
        }
        return bf16 ? bf16Value(i) : f16Value(i);
    }

    /** Nearest pattern to finite {@code x} (ties to the even pattern), searching the ordered patterns. */
    static int nearestEven(boolean bf16, float x) {
        int sign = (Float.floatToRawIntBits(x) & 0x80000000) != 0 ? 0x8000 : 0;
        BigDecimal v = new BigDecimal(Math.abs((double) x));
        int lo = 0;
        int hi = bf16 ? 0x7F80 : 0x7C00; // magnitude(hi) is the overflow threshold's upper neighbour
        if (v.compareTo(new BigDecimal(magnitude(bf16, hi))) >= 0) {
            return sign | hi;
        }
        while (hi - lo > 1) { // invariant: magnitude(lo) <= v < magnitude(hi)
            int mid = (lo + hi) >>> 1;
            if (new BigDecimal(magnitude(bf16, mid)).compareTo(v) <= 0) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        int c = v.subtract(new BigDecimal(magnitude(bf16, lo)))
                .compareTo(new BigDecimal(magnitude(bf16, hi)).subtract(v));
        return sign | (c < 0 ? lo : c > 0 ? hi : (lo % 2 == 0 ? lo : hi));
    }

    private static int f16(float f) {
        return HalfFloats.toF16(f) & 0xFFFF;
    }

    private static int bf16(float f) {
        return HalfFloats.toBF16(f) & 0xFFFF;
    }

    // ---------------------------------------------------------------- decoding

    @Example
    void decode_everyPattern_exact() {
        for (int bits = 0; bits < 0x10000; bits++) {
            double f = f16Value(bits);
            double b = bf16Value(bits);
            float df = HalfFloats.f16ToFloat((short) bits);
            float db = HalfFloats.bf16ToFloat((short) bits);
            if (Double.isNaN(f)) {
                assertTrue(Float.isNaN(df), Integer.toHexString(bits));
            } else {
                assertEquals(Double.doubleToRawLongBits(f), Double.doubleToRawLongBits(df), Integer.toHexString(bits));
            }
            if (Double.isNaN(b)) {
                assertTrue(Float.isNaN(db), Integer.toHexString(bits));
            } else {
                assertEquals(Double.doubleToRawLongBits(b), Double.doubleToRawLongBits(db), Integer.toHexString(bits));
            }
        }
    }

    @Example
    void encode_everyFiniteValue_roundTripsExactly() {
        for (int bits = 0; bits < 0x10000; bits++) {
            if (!Double.isNaN(f16Value(bits))) {
                assertEquals(bits, f16((float) f16Value(bits)), Integer.toHexString(bits));
            }
            if (!Double.isNaN(bf16Value(bits))) {
                assertEquals(bits, bf16((float) bf16Value(bits)), Integer.toHexString(bits));
            }
        }
    }

    // ---------------------------------------------------------------- rounding: every tie

    /** For each pair of neighbours (a, b): the midpoint goes to the even one, one f32 ulp off to the nearer. */
    private static void checkEveryTie(boolean bf16) {
        int last = bf16 ? 0x7F7F : 0x7BFF; // largest finite pattern; its upper neighbour is infinity
        for (int i = 0; i <= last; i++) {
            double a = magnitude(bf16, i);
            double b = magnitude(bf16, i + 1);
            float mid = (float) ((a + b) / 2); // exact: one bit more than the half format, far below f32's 24
            assertEquals((a + b) / 2, mid, 0.0);
            int even = i % 2 == 0 ? i : i + 1;
            for (int sign : new int[] {0, 0x8000}) {
                float m = sign == 0 ? mid : -mid;
                String at = (bf16 ? "bf16 " : "f16 ") + Integer.toHexString(sign | i) + " mid " + m;
                assertEquals(sign | even, bf16 ? bf16(m) : f16(m), at);
                float above = sign == 0 ? Math.nextUp(mid) : -Math.nextUp(mid);
                float below = sign == 0 ? Math.nextDown(mid) : -Math.nextDown(mid);
                assertEquals(sign | (i + 1), bf16 ? bf16(above) : f16(above), at + " +ulp");
                assertEquals(sign | i, bf16 ? bf16(below) : f16(below), at + " -ulp");
            }
        }
    }

    @Example
    void toF16_everyTie_roundsToEven() {
        checkEveryTie(false);
        // spot checks derived by hand: 65520 = (65504 + 65536) / 2, 65504 = 0x7BFF is odd, so the tie overflows
        assertEquals(0x7C00, f16(65520f));
        assertEquals(0x7BFF, f16(Math.nextDown(65520f)));
        // 2^-25 is halfway between 0 and the smallest subnormal 2^-24: ties to +0
        assertEquals(0x0000, f16(0x1p-25f));
        assertEquals(0x0001, f16(Math.nextUp(0x1p-25f)));
        // 1 + 2^-11 is halfway between 1 (0x3C00, even) and 1 + 2^-10
        assertEquals(0x3C00, f16(1 + 0x1p-11f));
        assertEquals(0x3C02, f16(1 + 3 * 0x1p-11f)); // between 0x3C01 (odd) and 0x3C02
    }

    @Example
    void toBF16_everyTie_roundsToEven() {
        checkEveryTie(true);
        // 1 + 2^-8 is halfway between 1.0 (0x3F80, even) and 1 + 2^-7 (0x3F81)
        assertEquals(0x3F80, bf16(1 + 0x1p-8f));
        assertEquals(0x3F82, bf16(1 + 3 * 0x1p-8f));
        // Float.MAX_VALUE is above the midpoint between the largest bf16 (0x7F7F) and 2^128: infinity
        assertEquals(0x7F80, bf16(Float.MAX_VALUE));
        assertEquals(0xFF80, bf16(-Float.MAX_VALUE));
        assertEquals(0x7F7F, bf16(Float.intBitsToFloat(0x7F7F7FFF)));
    }

    // ---------------------------------------------------------------- specials

    @Example
    void specials_preserved() {
        assertEquals(0x0000, f16(0f));
        assertEquals(0x8000, f16(-0f));
        assertEquals(0x7C00, f16(Float.POSITIVE_INFINITY));
        assertEquals(0xFC00, f16(Float.NEGATIVE_INFINITY));
        assertEquals(0x0000, bf16(0f));
        assertEquals(0x8000, bf16(-0f));
        assertEquals(0x7F80, bf16(Float.POSITIVE_INFINITY));
        assertEquals(0xFF80, bf16(Float.NEGATIVE_INFINITY));
        assertEquals(0x8000, f16(-Float.MIN_VALUE), "underflow keeps the sign");
        assertEquals(0x8000, bf16(-Float.MIN_VALUE));
        assertTrue(Float.isInfinite(HalfFloats.f16ToFloat((short) 0xFC00)));
        assertEquals(-0f, HalfFloats.bf16ToFloat((short) 0x8000));
        assertEquals(Float.floatToRawIntBits(-0f), Float.floatToRawIntBits(HalfFloats.f16ToFloat((short) 0x8000)));
    }

    @Example
    void nan_staysQuietNan_withItsSign() {
        int[] nans = {0x7FC00000, 0x7F800001, 0x7FBFFFFF, 0xFF800001, 0xFFC00000, 0x7F802000, 0x7FFFFFFF};
        for (int bits : nans) {
            float nan = Float.intBitsToFloat(bits);
            int sign = bits < 0 ? 0x8000 : 0;
            int h = f16(nan);
            assertEquals(0x7C00, h & 0x7C00, "f16 exponent all ones for " + Integer.toHexString(bits));
            assertTrue((h & 0x0200) != 0, "f16 quiet bit for " + Integer.toHexString(bits) + ": " + Integer.toHexString(h));
            assertEquals(sign, h & 0x8000);
            int b = bf16(nan);
            assertEquals(0x7F80, b & 0x7F80, "bf16 exponent all ones for " + Integer.toHexString(bits));
            assertTrue((b & 0x0040) != 0, "bf16 quiet bit for " + Integer.toHexString(bits) + ": " + Integer.toHexString(b));
            assertEquals(sign, b & 0x8000);
            assertTrue(Float.isNaN(HalfFloats.f16ToFloat((short) h)));
            assertTrue(Float.isNaN(HalfFloats.bf16ToFloat((short) b)));
        }
    }

    // ---------------------------------------------------------------- random floats against the reference

    @Provide
    Arbitrary<Float> f16Range() {
        // sign, exponent from below the subnormals to above the overflow threshold, random fraction
        return Arbitraries.integers().between(-28, 17).flatMap(e -> Arbitraries.integers().between(0, (1 << 23) - 1)
                .flatMap(frac -> Arbitraries.of(1f, -1f).map(s -> s * Math.scalb(1 + frac / (float) (1 << 23), e))));
    }

    @Provide
    Arbitrary<Float> anyFiniteFloat() {
        return Arbitraries.integers().map(Float::intBitsToFloat).filter(f -> !Float.isNaN(f) && !Float.isInfinite(f));
    }

    @Property(tries = 500)
    void toF16_matchesNearestEvenReference(@ForAll("f16Range") float f) {
        assertEquals(nearestEven(false, f), f16(f), Float.toString(f));
    }

    @Property(tries = 500)
    void toBF16_matchesNearestEvenReference(@ForAll("anyFiniteFloat") float f) {
        assertEquals(nearestEven(true, f), bf16(f), Float.toString(f));
    }
}
