package dev.rlx.ir;

import java.util.Locale;

/**
 * Reductions over a set of axes, applied by {@link Op.Reduce}. Over zero elements: SUM gives 0, PROD 1,
 * MAX {@code -inf} (integer minimum), MIN {@code +inf} (integer maximum), MEAN NaN.
 */
public enum ReduceKind {
    /** Sum; numeric. */
    SUM,
    /** Arithmetic mean; float only. */
    MEAN,
    /** Maximum (NaN if any element is NaN); numeric. */
    MAX,
    /** Minimum (NaN if any element is NaN); numeric. */
    MIN,
    /** Product; numeric. */
    PROD;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
