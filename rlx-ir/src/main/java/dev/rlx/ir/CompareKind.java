package dev.rlx.ir;

import java.util.Locale;

/**
 * Element-wise comparisons with NumPy broadcasting, applied by {@link Op.Compare}; the result is BOOL.
 * Comparisons with NaN are false except {@link #NE}, as IEEE 754 says.
 */
public enum CompareKind {
    /** {@code a == b}. */
    EQ,
    /** {@code a != b}. */
    NE,
    /** {@code a < b}. */
    LT,
    /** {@code a <= b}. */
    LE,
    /** {@code a > b}. */
    GT,
    /** {@code a >= b}. */
    GE;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
