package dev.rlx.runtime;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import dev.rlx.ir.DType;
import dev.rlx.ir.Elements;
import dev.rlx.ir.HalfFloats;
import java.lang.foreign.MemorySegment;

/**
 * Copies between Java arrays and tensor bytes of a given dtype, converting where the conversion is exact or
 * a plain rounding: float data into any float type, integer data into any integer type (range-checked
 * before anything is written), booleans into BOOL. Reads convert any real type out. No allocation.
 */
final class HostData {
    private HostData() {}

    /** Null if {@code float[]}/{@code double[]} data can be written to {@code t}, else the reason. */
    static String floatTarget(DType t) {
        return t.isFloat() ? null : "it holds " + t.label() + " (use an integer or boolean array)";
    }

    static String intTarget(DType t) {
        return t.isInteger() ? null : "it holds " + t.label() + (t.isFloat() ? " (use a float array)" : "");
    }

    static void write(float[] src, MemorySegment dst, DType t) {
        int n = src.length;
        switch (t) {
            case F32 -> MemorySegment.copy(src, 0, dst, JAVA_FLOAT_UNALIGNED, 0, n);
            case F64 -> { for (int i = 0; i < n; i++) dst.setAtIndex(JAVA_DOUBLE_UNALIGNED, i, src[i]); }
            case F16 -> { for (int i = 0; i < n; i++) dst.setAtIndex(JAVA_SHORT_UNALIGNED, i, HalfFloats.toF16(src[i])); }
            case BF16 -> { for (int i = 0; i < n; i++) dst.setAtIndex(JAVA_SHORT_UNALIGNED, i, HalfFloats.toBF16(src[i])); }
            default -> throw new IllegalStateException("float data into " + t);
        }
    }

    static void write(double[] src, MemorySegment dst, DType t) {
        int n = src.length;
        switch (t) {
            case F64 -> MemorySegment.copy(src, 0, dst, JAVA_DOUBLE_UNALIGNED, 0, n);
            case F32 -> { for (int i = 0; i < n; i++) dst.setAtIndex(JAVA_FLOAT_UNALIGNED, i, (float) src[i]); }
            case F16, BF16 -> { for (int i = 0; i < n; i++) Elements.setDouble(dst, i, t, src[i]); } // no double rounding
            default -> throw new IllegalStateException("float data into " + t);
        }
    }

    /** Index of the first value {@code t} cannot hold, or -1. */
    static int firstOutOfRange(long[] src, DType t) {
        long lo = Elements.min(t);
        long hi = Elements.max(t);
        for (int i = 0; i < src.length; i++) {
            if (src[i] < lo || src[i] > hi) {
                return i;
            }
        }
        return -1;
    }

    static int firstOutOfRange(int[] src, DType t) {
        long lo = Elements.min(t);
        long hi = Elements.max(t);
        for (int i = 0; i < src.length; i++) {
            if (src[i] < lo || src[i] > hi) {
                return i;
            }
        }
        return -1;
    }

    static void write(int[] src, MemorySegment dst, DType t) {
        int n = src.length;
        if (t == DType.I32) {
            MemorySegment.copy(src, 0, dst, JAVA_INT_UNALIGNED, 0, n);
            return;
        }
        for (int i = 0; i < n; i++) {
            Elements.setLong(dst, i, t, src[i]);
        }
    }

    static void write(long[] src, MemorySegment dst, DType t) {
        int n = src.length;
        if (t == DType.I64) {
            MemorySegment.copy(src, 0, dst, JAVA_LONG_UNALIGNED, 0, n);
            return;
        }
        for (int i = 0; i < n; i++) {
            Elements.setLong(dst, i, t, src[i]);
        }
    }

    static void write(boolean[] src, MemorySegment dst) {
        for (int i = 0; i < src.length; i++) {
            dst.set(JAVA_BYTE, i, (byte) (src[i] ? 1 : 0));
        }
    }

    static void read(MemorySegment src, DType t, float[] dst, int n) {
        if (t == DType.F32) {
            MemorySegment.copy(src, JAVA_FLOAT_UNALIGNED, 0, dst, 0, n);
            return;
        }
        for (int i = 0; i < n; i++) {
            dst[i] = (float) Elements.getDouble(src, i, t);
        }
    }

    static void read(MemorySegment src, DType t, double[] dst, int n) {
        if (t == DType.F64) {
            MemorySegment.copy(src, JAVA_DOUBLE_UNALIGNED, 0, dst, 0, n);
            return;
        }
        for (int i = 0; i < n; i++) {
            dst[i] = Elements.getDouble(src, i, t);
        }
    }

    static void read(MemorySegment src, DType t, long[] dst, int n) {
        if (t == DType.I64) {
            MemorySegment.copy(src, JAVA_LONG_UNALIGNED, 0, dst, 0, n);
            return;
        }
        for (int i = 0; i < n; i++) {
            dst[i] = Elements.getLong(src, i, t);
        }
    }

    static void read(MemorySegment src, DType t, int[] dst, int n) {
        if (t == DType.I32) {
            MemorySegment.copy(src, JAVA_INT_UNALIGNED, 0, dst, 0, n);
            return;
        }
        for (int i = 0; i < n; i++) {
            dst[i] = (int) Elements.getLong(src, i, t);
        }
    }
}
