package dev.rlx.opt;

import dev.rlx.ir.Op;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.UnaryKind;
import java.util.EnumSet;
import java.util.Set;

/**
 * The core op set every backend runs: with these alone any graph runs, because the pipeline decomposes every
 * other op into them ({@link dev.rlx.opt.decompose.Decompose}). The rest (norms, softmax, attention, RoPE,
 * GELU and SiLU, the fusion products) are first-class for speed: a backend claims the ones it has fast kernels
 * for.
 */
public final class Primitives {
    private Primitives() {}

    /** Kinds whose every node is primitive (UNARY is primitive except for {@link #COMPOSITE_UNARY}). */
    public static final Set<OpKind> KINDS = EnumSet.of(
            OpKind.INPUT, OpKind.PARAM, OpKind.CONSTANT,
            OpKind.UNARY, OpKind.BINARY, OpKind.COMPARE, OpKind.WHERE, OpKind.CAST,
            OpKind.MATMUL,
            OpKind.REDUCE, OpKind.ARG_REDUCE, OpKind.CUMSUM, OpKind.TOP_K,
            OpKind.RESHAPE, OpKind.TRANSPOSE, OpKind.SLICE, OpKind.CONCAT, OpKind.EXPAND,
            OpKind.GATHER, OpKind.SCATTER_ADD,
            OpKind.CONV, OpKind.CONV_TRANSPOSE, OpKind.POOL,
            OpKind.FFT,
            OpKind.IF, OpKind.WHILE, OpKind.SCAN,
            OpKind.CUSTOM,
            OpKind.RNG_NORMAL, OpKind.RNG_UNIFORM);

    /** Unary functions written in terms of other element-wise ops (erf, tanh, exp, arithmetic). */
    public static final Set<UnaryKind> COMPOSITE_UNARY =
            EnumSet.of(UnaryKind.GELU, UnaryKind.GELU_TANH, UnaryKind.SILU, UnaryKind.SIGMOID);

    /** Whether {@code op} belongs to the core set. */
    public static boolean isPrimitive(Op op) {
        if (op instanceof Op.Unary u) {
            return !COMPOSITE_UNARY.contains(u.op());
        }
        return KINDS.contains(op.kind());
    }
}
