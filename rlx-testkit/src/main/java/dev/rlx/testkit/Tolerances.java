package dev.rlx.testkit;

import dev.rlx.ir.DType;
import java.util.EnumMap;
import java.util.Map;

/**
 * The tolerance for an output of each float dtype (integer and BOOL outputs are always compared exactly). The
 * defaults assume a few roundings in the dtype on values of order 1; a case that needs a looser bound states
 * it, with its reason, through {@link #with}.
 */
public final class Tolerances {
    private static final Tolerance INTEGER = Tolerance.exact("integer and boolean results are exact");

    private final Map<DType, Tolerance> byType;

    private Tolerances(Map<DType, Tolerance> byType) {
        this.byType = byType;
    }

    /**
     * F64 1e-12 (double arithmetic in another order), F32 and C64 1e-6 absolute and relative (a few f32
     * roundings, unit roundoff 6e-8, of values of order 1), F16 1e-3 (one f16 rounding, 2^-11 = 4.9e-4, on top of
     * f32 arithmetic), BF16 8e-3 (one bf16 rounding, 2^-8 = 3.9e-3).
     */
    public static Tolerances defaults() {
        Map<DType, Tolerance> m = new EnumMap<>(DType.class);
        m.put(DType.F64, Tolerance.of(1e-12, 1e-12, "double arithmetic in another order than the reference"));
        Tolerance f32 = Tolerance.of(1e-6, 1e-6, "a few f32 roundings of values of order 1");
        m.put(DType.F32, f32);
        m.put(DType.C64, f32);
        m.put(DType.F16, Tolerance.of(1e-3, 1e-3, "one f16 rounding (2^-11) of an f32 result"));
        m.put(DType.BF16, Tolerance.of(8e-3, 8e-3, "one bf16 rounding (2^-8) of an f32 result"));
        return new Tolerances(m);
    }

    /** These tolerances with {@code t} for outputs of {@code dtype} (a float type). */
    public Tolerances with(DType dtype, Tolerance t) {
        if (!dtype.isFloat() && !dtype.isComplex()) {
            throw new IllegalArgumentException(dtype + " outputs are always compared exactly");
        }
        Map<DType, Tolerance> m = new EnumMap<>(byType);
        m.put(dtype, t);
        return new Tolerances(m);
    }

    /** The tolerance for an output of {@code dtype}. */
    public Tolerance of(DType dtype) {
        return dtype.isInteger() || dtype.isBool() ? INTEGER : byType.get(dtype);
    }
}
