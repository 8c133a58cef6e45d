package dev.rlx.ir;

import java.util.Locale;

/**
 * Element-wise binary functions with NumPy broadcasting, applied by {@link Op.Binary}. Both operands have
 * the same dtype, which is also the result's.
 */
public enum BinaryKind {
    /** {@code a + b} (integers wrap). */
    ADD(Domain.NUMERIC),
    /** {@code a - b}. */
    SUB(Domain.NUMERIC),
    /** {@code a * b}. */
    MUL(Domain.NUMERIC),
    /** {@code a / b}; IEEE for floats; integers truncate toward zero and give 0 when {@code b == 0}. */
    DIV(Domain.NUMERIC),
    /** {@code a^b}; float only. */
    POW(Domain.FLOAT),
    /** Larger of the two; NaN if either is NaN (as PyTorch and JAX). */
    MAX(Domain.NUMERIC),
    /** Smaller of the two; NaN if either is NaN. */
    MIN(Domain.NUMERIC),
    /** Floored modulo, sign of the divisor ({@code -7 mod 3 = 2}) as NumPy; integer {@code b == 0} gives 0. */
    MOD(Domain.NUMERIC),
    /** Logical and; bool only. */
    AND(Domain.BOOL),
    /** Logical or; bool only. */
    OR(Domain.BOOL),
    /** Logical exclusive or; bool only. */
    XOR(Domain.BOOL);

    /** Which dtypes a kind accepts. */
    public enum Domain { FLOAT, NUMERIC, BOOL }

    private final Domain domain;

    BinaryKind(Domain domain) {
        this.domain = domain;
    }

    public Domain domain() {
        return domain;
    }

    public boolean accepts(DType t) {
        return switch (domain) {
            case FLOAT -> t.isFloat();
            case NUMERIC -> t.isFloat() || t.isInteger();
            case BOOL -> t.isBool();
        };
    }

    /** {@code op(a, b) == op(b, a)}. */
    public boolean isCommutative() {
        return this != SUB && this != DIV && this != POW && this != MOD;
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
