package dev.rlx.opt;

import dev.rlx.ir.DType;

/**
 * Which float type tensors are stored and computed in. Only F32 tensors are re-typed: integer, boolean,
 * F64 and complex tensors keep their type under every policy, and graph inputs and outputs keep theirs
 * (casts are inserted at the edges).
 */
public enum PrecisionPolicy {
    /** Everything as built (the default). */
    F32(null, false),
    /** Activations and weights stored in F16; kernels accumulate in F32 or wider. */
    F16(DType.F16, false),
    /** Activations and weights stored in BF16; kernels accumulate in F32 or wider. */
    BF16(DType.BF16, false),
    /**
     * Automatic mixed precision: matmul, convolution and attention run on F16 operands (weights they alone
     * read are stored in F16); softmax, normalisations, reductions and the residual stream stay F32.
     */
    AMP(DType.F16, true),
    /** {@link #AMP} with BF16 (wider range, less mantissa). */
    AMP_BF16(DType.BF16, true);

    private final DType half;
    private final boolean mixed;

    PrecisionPolicy(DType half, boolean mixed) {
        this.half = half;
        this.mixed = mixed;
    }

    /** The reduced type, or null for {@link #F32}. */
    public DType half() {
        return half;
    }

    /** True for the mixed policies, which re-type only compute ops. */
    public boolean mixed() {
        return mixed;
    }
}
