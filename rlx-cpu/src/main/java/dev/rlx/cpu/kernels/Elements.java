package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dev.rlx.ir.DType;
import dev.rlx.ir.HalfFloats;
import java.lang.foreign.MemorySegment;

/**
 * Scalar element access for any dtype, used by the generic (non-f32) kernel paths and as the readable
 * reference. Floats go through double, integers through long, so I64 keeps all 64 bits.
 */
public final class Elements {
    private Elements() {}

    /** Element {@code i} as double (BOOL as 0/1, C64 real part). */
    public static double getD(MemorySegment s, long i, DType t) {
        return switch (t) {
            case F32 -> s.getAtIndex(JAVA_FLOAT, i);
            case F64 -> s.getAtIndex(JAVA_DOUBLE, i);
            case F16 -> HalfFloats.f16ToFloat(s.getAtIndex(JAVA_SHORT, i));
            case BF16 -> HalfFloats.bf16ToFloat(s.getAtIndex(JAVA_SHORT, i));
            case C64 -> s.getAtIndex(JAVA_FLOAT, 2 * i);
            default -> getL(s, i, t);
        };
    }

    /** Element {@code i} of an integer or BOOL tensor as long (floats truncate, see {@link #toLong}). */
    public static long getL(MemorySegment s, long i, DType t) {
        return switch (t) {
            case I8 -> s.get(JAVA_BYTE, i);
            case U8 -> s.get(JAVA_BYTE, i) & 0xFF;
            case BOOL -> s.get(JAVA_BYTE, i) != 0 ? 1 : 0;
            case I16 -> s.getAtIndex(JAVA_SHORT, i);
            case I32 -> s.getAtIndex(JAVA_INT, i);
            case U32 -> s.getAtIndex(JAVA_INT, i) & 0xFFFFFFFFL;
            case I64 -> s.getAtIndex(JAVA_LONG, i);
            default -> toLong(getD(s, i, t), DType.I64);
        };
    }

    public static boolean getBool(MemorySegment s, long i) {
        return s.get(JAVA_BYTE, i) != 0;
    }

    public static void setBool(MemorySegment s, long i, boolean v) {
        s.set(JAVA_BYTE, i, (byte) (v ? 1 : 0));
    }

    /** Stores {@code v} converted to {@code t} as {@code cast} does (to integers: truncate and saturate). */
    public static void setD(MemorySegment s, long i, DType t, double v) {
        switch (t) {
            case F32 -> s.setAtIndex(JAVA_FLOAT, i, (float) v);
            case F64 -> s.setAtIndex(JAVA_DOUBLE, i, v);
            case F16 -> s.setAtIndex(JAVA_SHORT, i, HalfFloats.toF16((float) v));
            case BF16 -> s.setAtIndex(JAVA_SHORT, i, HalfFloats.toBF16((float) v));
            case C64 -> {
                s.setAtIndex(JAVA_FLOAT, 2 * i, (float) v);
                s.setAtIndex(JAVA_FLOAT, 2 * i + 1, 0f);
            }
            case BOOL -> s.set(JAVA_BYTE, i, (byte) (v != 0 ? 1 : 0));
            default -> setL(s, i, t, toLong(v, t));
        }
    }

    /** Stores {@code v} in an integer or BOOL slot (wrapping to the width, as integer arithmetic does). */
    public static void setL(MemorySegment s, long i, DType t, long v) {
        switch (t) {
            case I8, U8 -> s.set(JAVA_BYTE, i, (byte) v);
            case BOOL -> s.set(JAVA_BYTE, i, (byte) (v != 0 ? 1 : 0));
            case I16 -> s.setAtIndex(JAVA_SHORT, i, (short) v);
            case I32, U32 -> s.setAtIndex(JAVA_INT, i, (int) v);
            case I64 -> s.setAtIndex(JAVA_LONG, i, v);
            default -> setD(s, i, t, v);
        }
    }

    /** Float to integer type {@code t}: truncate toward zero, saturate at the type's range, NaN to 0. */
    public static long toLong(double v, DType t) {
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

    /** Whether {@code t} computes through {@code long} in the generic paths. */
    public static boolean integral(DType t) {
        return t.isInteger() || t.isBool();
    }
}
