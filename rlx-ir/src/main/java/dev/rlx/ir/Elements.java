package dev.rlx.ir;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import java.lang.foreign.MemorySegment;

/**
 * The one place that reads and writes an element of any {@link DType} in little-endian memory (tensor bytes,
 * arena slots, weight buffers), with the conversions of {@link Op.Cast}. Floats pass through double and
 * integers through long, so I64 keeps all its bits. Indices count elements, not bytes; any alignment works.
 */
public final class Elements {
    private Elements() {}

    /** Element {@code i} as double: BOOL as 0/1, C64 its real part, integers exactly up to 2^53. */
    public static double getDouble(MemorySegment s, long i, DType t) {
        return switch (t) {
            case F32 -> s.getAtIndex(JAVA_FLOAT_UNALIGNED, i);
            case F64 -> s.getAtIndex(JAVA_DOUBLE_UNALIGNED, i);
            case F16 -> HalfFloats.f16ToFloat(s.getAtIndex(JAVA_SHORT_UNALIGNED, i));
            case BF16 -> HalfFloats.bf16ToFloat(s.getAtIndex(JAVA_SHORT_UNALIGNED, i));
            case C64 -> s.getAtIndex(JAVA_FLOAT_UNALIGNED, 2 * i);
            default -> getLong(s, i, t);
        };
    }

    /** Element {@code i} of an integer or BOOL tensor as long; a float element converts as a cast to I64. */
    public static long getLong(MemorySegment s, long i, DType t) {
        return switch (t) {
            case I8 -> s.get(JAVA_BYTE, i);
            case U8 -> s.get(JAVA_BYTE, i) & 0xFF;
            case BOOL -> s.get(JAVA_BYTE, i) != 0 ? 1 : 0;
            case I16 -> s.getAtIndex(JAVA_SHORT_UNALIGNED, i);
            case I32 -> s.getAtIndex(JAVA_INT_UNALIGNED, i);
            case U32 -> s.getAtIndex(JAVA_INT_UNALIGNED, i) & 0xFFFFFFFFL;
            case I64 -> s.getAtIndex(JAVA_LONG_UNALIGNED, i);
            default -> toInteger(getDouble(s, i, t), DType.I64);
        };
    }

    public static boolean getBool(MemorySegment s, long i) {
        return s.get(JAVA_BYTE, i) != 0;
    }

    public static void setBool(MemorySegment s, long i, boolean v) {
        s.set(JAVA_BYTE, i, (byte) (v ? 1 : 0));
    }

    /**
     * Stores {@code v} converted to {@code t} as a cast does: to a float type rounded once (F16/BF16 without
     * double rounding through f32), to an integer type truncated toward zero and saturated (NaN to 0), to
     * BOOL {@code v != 0}, to C64 {@code (v, 0)}.
     */
    public static void setDouble(MemorySegment s, long i, DType t, double v) {
        switch (t) {
            case F32 -> s.setAtIndex(JAVA_FLOAT_UNALIGNED, i, (float) v);
            case F64 -> s.setAtIndex(JAVA_DOUBLE_UNALIGNED, i, v);
            case F16 -> s.setAtIndex(JAVA_SHORT_UNALIGNED, i, HalfFloats.toF16(roundToOdd(v)));
            case BF16 -> s.setAtIndex(JAVA_SHORT_UNALIGNED, i, HalfFloats.toBF16(roundToOdd(v)));
            case C64 -> {
                s.setAtIndex(JAVA_FLOAT_UNALIGNED, 2 * i, (float) v);
                s.setAtIndex(JAVA_FLOAT_UNALIGNED, 2 * i + 1, 0f);
            }
            case BOOL -> s.set(JAVA_BYTE, i, (byte) (v != 0 ? 1 : 0));
            default -> setLong(s, i, t, toInteger(v, t));
        }
    }

    /** Stores {@code v} in an integer or BOOL slot, wrapping to the width as integer arithmetic does. */
    public static void setLong(MemorySegment s, long i, DType t, long v) {
        switch (t) {
            case I8, U8 -> s.set(JAVA_BYTE, i, (byte) v);
            case BOOL -> s.set(JAVA_BYTE, i, (byte) (v != 0 ? 1 : 0));
            case I16 -> s.setAtIndex(JAVA_SHORT_UNALIGNED, i, (short) v);
            case I32, U32 -> s.setAtIndex(JAVA_INT_UNALIGNED, i, (int) v);
            case I64 -> s.setAtIndex(JAVA_LONG_UNALIGNED, i, v);
            default -> setDouble(s, i, t, v);
        }
    }

    /** A float converted to integer type {@code t}: truncated toward zero, saturated at the type's range, NaN to 0. */
    public static long toInteger(double v, DType t) {
        if (Double.isNaN(v)) {
            return 0;
        }
        double t0 = v < 0 ? Math.ceil(v) : Math.floor(v);
        return switch (t) {
            case I8 -> (long) Math.max(Byte.MIN_VALUE, Math.min(Byte.MAX_VALUE, t0));
            case U8 -> (long) Math.max(0, Math.min(255, t0));
            case I16 -> (long) Math.max(Short.MIN_VALUE, Math.min(Short.MAX_VALUE, t0));
            case I32 -> (long) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, t0));
            case U32 -> (long) Math.max(0, Math.min(4294967295.0, t0));
            default -> (long) t0; // Java's (long) saturates at the I64 range
        };
    }

    /** Whether {@code t} computes through {@code long} (integers and BOOL). */
    public static boolean integral(DType t) {
        return t.isInteger() || t.isBool();
    }

    /** The least value integer type {@code t} holds (Long.MIN_VALUE for I64 and non-integers). */
    public static long min(DType t) {
        return switch (t) {
            case I8 -> Byte.MIN_VALUE;
            case I16 -> Short.MIN_VALUE;
            case I32 -> Integer.MIN_VALUE;
            case U8, U32 -> 0;
            default -> Long.MIN_VALUE;
        };
    }

    /** The greatest value integer type {@code t} holds (Long.MAX_VALUE for I64 and non-integers). */
    public static long max(DType t) {
        return switch (t) {
            case I8 -> Byte.MAX_VALUE;
            case I16 -> Short.MAX_VALUE;
            case I32 -> Integer.MAX_VALUE;
            case U8 -> 255;
            case U32 -> 0xFFFFFFFFL;
            default -> Long.MAX_VALUE;
        };
    }

    /**
     * {@code v} as a float rounded to odd: exact when representable, otherwise the float next to {@code v}
     * toward zero with its last bit set. Rounding that to a format of at most 22 significant bits (f16, bf16)
     * gives the correctly rounded {@code v}, which going through the nearest float would not (double rounding).
     */
    static float roundToOdd(double v) {
        float f = (float) v;
        if (Float.isNaN(f) || Float.isInfinite(f) || f == v) {
            return f;
        }
        float towardZero = Math.abs((double) f) > Math.abs(v) ? Math.nextAfter(f, 0.0) : f;
        return Float.intBitsToFloat(Float.floatToRawIntBits(towardZero) | 1);
    }
}
