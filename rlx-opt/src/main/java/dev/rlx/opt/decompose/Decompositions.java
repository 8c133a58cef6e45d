package dev.rlx.opt.decompose;

import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.opt.Primitives;

/** Which ops have a {@link Decomposition}, and how each one treats half-precision data. */
final class Decompositions {
    private Decompositions() {}

    /**
     * The decomposition of {@code n}, or null when its op has none (the primitives, and the rare node whose
     * decomposition would not fit, see {@link AttentionDecomposition#fits}). Exhaustive over the op kinds, so a
     * new kind has to say whether it decomposes.
     */
    static Decomposition of(Node n) {
        Op op = n.op();
        return switch (op.kind()) {
            case SOFTMAX -> SoftmaxFamily::softmax;
            case LOG_SOFTMAX -> SoftmaxFamily::logSoftmax;
            case LAYER_NORM -> Norms::layerNorm;
            case RMS_NORM -> Norms::rmsNorm;
            case GROUP_NORM -> Norms::groupNorm;
            case UNARY -> Primitives.isPrimitive(op) ? null : Activations::apply;
            case ATTENTION -> AttentionDecomposition.fits(n) ? AttentionDecomposition::apply : null;
            case ROPE -> RopeDecomposition::apply;
            case FUSED -> FusionProducts::fused;
            case FUSED_MATMUL -> FusionProducts::fusedMatMul;
            case ADD_NORM -> FusionProducts::addNorm;
            case MATMUL -> op instanceof Op.MatMul m && (m.transA() || m.transB()) ? TransposedMatMul::apply : null;
            case INPUT, PARAM, CONSTANT, BINARY, COMPARE, WHERE, CAST, REDUCE, ARG_REDUCE, CUMSUM, TOP_K, RESHAPE,
                 TRANSPOSE, SLICE, CONCAT, EXPAND, GATHER, SCATTER_ADD, CONV, CONV_TRANSPOSE, POOL, FFT, IF, WHILE,
                 SCAN, CUSTOM, RNG_NORMAL, RNG_UNIFORM, PAGED_ATTENTION, QUANT_MATMUL -> null;
        };
    }

    /**
     * Whether the decomposition of {@code op} may run on the op's own half-precision data: true when it only
     * moves data (a transposed matmul's explicit transposes), so it rounds nothing the op would not. Every
     * other decomposition on F16/BF16 data runs in F32 between casts instead, since a chain of half ops would
     * round each intermediate (a softmax's sum, a norm's variance, add-norm's sum before the norm reads it)
     * to half where the op keeps it in f32.
     */
    static boolean keepsHalf(Op op) {
        return op instanceof Op.MatMul;
    }
}
