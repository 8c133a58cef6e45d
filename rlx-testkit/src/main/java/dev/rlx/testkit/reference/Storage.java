package dev.rlx.testkit.reference;

import dev.rlx.ir.DType;
import dev.rlx.ir.Tensor;

/**
 * What a value becomes when stored in a dtype, as {@code Op.Cast} defines it: floats round to nearest even
 * (once, from the double), integers wrap to their width, floats going to integers truncate toward zero and
 * saturate (NaN to 0), anything to BOOL is {@code != 0}.
 */
final class Storage {
    private Storage() {}

    /** {@code v} stored in float or BOOL type {@code t} (C64: the real part's f32). */
    static double roundFloat(double v, DType t) {
        return switch (t) {
            case F64 -> v;
            case F32, C64 -> (float) v;
            // Tensor.scalar rounds to the half type once, from the double (round to odd, then to nearest even)
            case F16, BF16 -> Tensor.scalar(t, v).getDouble(0);
            case BOOL -> v != 0 ? 1 : 0;
            default -> throw new IllegalArgumentException(t + " is not a float type");
        };
    }

    /** {@code v} wrapped to integer type {@code t} (U8 and U32 as their unsigned values). */
    static long wrap(long v, DType t) {
        return switch (t) {
            case I8 -> (byte) v;
            case U8 -> v & 0xFF;
            case I16 -> (short) v;
            case I32 -> (int) v;
            case U32 -> v & 0xFFFFFFFFL;
            case I64 -> v;
            case BOOL -> v != 0 ? 1 : 0;
            default -> throw new IllegalArgumentException(t + " is not an integer type");
        };
    }

    /** Float {@code v} converted to integer type {@code t}: truncated toward zero, saturated, NaN to 0. */
    static long saturate(double v, DType t) {
        return (long) Tensor.scalar(t, v).getDouble(0);
    }

    /** Integer {@code v} converted to float type {@code t}, rounded to nearest once. */
    static double fromInteger(long v, DType t) {
        return switch (t) {
            case F32, C64 -> (float) v; // Java's long-to-float conversion rounds once
            case F64 -> (double) v;
            default -> roundFloat((double) v, t);
        };
    }

    /** The smallest value of integer type {@code t}. */
    static long min(DType t) {
        return switch (t) {
            case I8 -> Byte.MIN_VALUE;
            case I16 -> Short.MIN_VALUE;
            case I32 -> Integer.MIN_VALUE;
            case I64 -> Long.MIN_VALUE;
            default -> 0;
        };
    }

    /** The largest value of integer type {@code t}. */
    static long max(DType t) {
        return switch (t) {
            case I8 -> Byte.MAX_VALUE;
            case U8 -> 0xFF;
            case I16 -> Short.MAX_VALUE;
            case I32 -> Integer.MAX_VALUE;
            case U32 -> 0xFFFFFFFFL;
            case I64 -> Long.MAX_VALUE;
            default -> 1;
        };
    }
}
