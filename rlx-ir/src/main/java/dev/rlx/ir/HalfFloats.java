package dev.rlx.ir;

/**
 * Conversions between f32 and the two 16-bit float formats, rounding to nearest even as IEEE 754 and
 * every ML framework do. NaN stays NaN (quiet), infinities and signed zeros are kept.
 */
public final class HalfFloats {
    private HalfFloats() {}

    /** IEEE binary16 bits to float (exact). */
    public static float f16ToFloat(short bits) {
        return Float.float16ToFloat(bits);
    }

    /** Float to IEEE binary16 bits, round to nearest even. */
    public static short toF16(float f) {
        return Float.floatToFloat16(f);
    }

    /** bfloat16 bits (the top half of an f32) to float (exact). */
    public static float bf16ToFloat(short bits) {
        return Float.intBitsToFloat((bits & 0xFFFF) << 16);
    }

    /** Float to bfloat16 bits, round to nearest even; NaN maps to a quiet NaN. */
    public static short toBF16(float f) {
        int x = Float.floatToRawIntBits(f);
        if ((x & 0x7FFFFFFF) > 0x7F800000) {
            return (short) ((x >>> 16) | 0x0040);
        }
        int rounding = 0x7FFF + ((x >>> 16) & 1);
        return (short) ((x + rounding) >>> 16);
    }
}
