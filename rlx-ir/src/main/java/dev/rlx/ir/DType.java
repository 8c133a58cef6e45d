package dev.rlx.ir;

import java.util.Locale;

/**
 * Element types. Storage is little-endian; {@link #C64} is two interleaved f32 (real, imaginary); {@link #BOOL}
 * is one byte holding 0 or 1.
 *
 * <p>Binary ops require equal operand dtypes (as ONNX and {@code jax.lax} do): insert a {@code cast}
 * where types differ. {@link #promote} gives the common type to cast to.
 */
public enum DType {
    F32(4, Kind.FLOAT, 6),
    F16(2, Kind.FLOAT, 3),
    BF16(2, Kind.FLOAT, 2),
    F64(8, Kind.FLOAT, 7),
    I8(1, Kind.SIGNED, 1),
    I16(2, Kind.SIGNED, 2),
    I32(4, Kind.SIGNED, 4),
    I64(8, Kind.SIGNED, 5),
    U8(1, Kind.UNSIGNED, 1),
    U32(4, Kind.UNSIGNED, 4),
    BOOL(1, Kind.BOOL, 0),
    C64(8, Kind.COMPLEX, 8);

    private enum Kind { FLOAT, SIGNED, UNSIGNED, BOOL, COMPLEX }

    private final int byteSize;
    private final Kind kind;
    /** Rank used by {@link #promote}: the wider type wins. */
    private final int rank;

    DType(int byteSize, Kind kind, int rank) {
        this.byteSize = byteSize;
        this.kind = kind;
        this.rank = rank;
    }

    /** Bytes per element. */
    public int byteSize() {
        return byteSize;
    }

    /** F32, F16, BF16 or F64. */
    public boolean isFloat() {
        return kind == Kind.FLOAT;
    }

    /** Signed or unsigned integer (BOOL is not an integer). */
    public boolean isInteger() {
        return kind == Kind.SIGNED || kind == Kind.UNSIGNED;
    }

    public boolean isUnsigned() {
        return kind == Kind.UNSIGNED;
    }

    public boolean isComplex() {
        return kind == Kind.COMPLEX;
    }

    public boolean isBool() {
        return kind == Kind.BOOL;
    }

    /** Float, integer or complex: the types arithmetic is defined on. */
    public boolean isNumeric() {
        return kind != Kind.BOOL;
    }

    /** Lower-case name used in printed shapes: {@code f32}, {@code bf16}, {@code bool}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses {@link #label()} or the enum name, case-insensitively. */
    public static DType parse(String s) {
        for (DType d : values()) {
            if (d.name().equalsIgnoreCase(s)) {
                return d;
            }
        }
        throw new IllegalArgumentException("unknown dtype '" + s + "'");
    }

    /**
     * The type both operands convert to without losing range, symmetric in its arguments.
     *
     * <ul>
     *   <li>equal types: that type; F16 with BF16: F32 (neither holds the other);
     *   <li>float with integer: F64 if either is F64 or the integer is 64-bit, else F32 for F16/BF16 and the
     *       float itself otherwise;
     *   <li>signed with unsigned of the same width: the next wider signed type (U8,I8 -> I16; U32,I32 -> I64);
     *   <li>otherwise the wider type (BOOL &lt; 8-bit &lt; 16-bit &lt; 32-bit &lt; I64 &lt; F32 &lt; F64 &lt; C64).
     * </ul>
     */
    public static DType promote(DType a, DType b) {
        if (a == b) {
            return a;
        }
        if ((a == F16 && b == BF16) || (a == BF16 && b == F16)) {
            return F32;
        }
        if (a.isFloat() && b.isInteger() || a.isInteger() && b.isFloat()) {
            DType f = a.isFloat() ? a : b;
            DType i = a.isFloat() ? b : a;
            if (f == F64 || i == I64) {
                return F64;
            }
            return f.byteSize < 4 ? F32 : f;
        }
        if (a.isInteger() && b.isInteger() && a.isUnsigned() != b.isUnsigned() && a.byteSize == b.byteSize) {
            return a.byteSize == 1 ? I16 : I64;
        }
        if (a.isInteger() && b.isInteger() && a.isUnsigned() != b.isUnsigned()) {
            DType wide = a.byteSize > b.byteSize ? a : b;
            // A wider signed type holds the narrower unsigned range; a wider unsigned one (U32) cannot hold
            // negatives, so both go to I64.
            return wide.isUnsigned() ? I64 : wide;
        }
        if (a.rank != b.rank) {
            return a.rank > b.rank ? a : b;
        }
        return a.ordinal() < b.ordinal() ? a : b; // not reached for distinct types; keeps the rule symmetric

    }
}
