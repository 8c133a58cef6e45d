package dev.rlx.cpu.kernels;

import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.UnaryKind;
import jdk.incubator.vector.FloatVector;

/**
 * How a generated {@link FusedLoop} applies each element-wise op to f32 vectors: ops the Vector API has as a
 * lanewise operator that is exact in every JIT tier (sqrt, neg, abs) go through {@code lanewise(VectorOperators.X)}
 * ({@link #operator}); the rest (transcendental ones too: SVML and the Java fallback round differently) call a static
 * method here ({@link #method}), each the same expression as the op's loop in {@link UnaryF32Loops}, and all
 * small enough that C2 always inlines them into the generated loop.
 */
final class FusedOps {
    private FusedOps() {}

    /** The {@code VectorOperators} field that implements {@code k} through {@code lanewise}, or null. */
    static String operator(UnaryKind k) {
        return switch (k) {
            case SQRT, NEG, ABS -> k.name();
            default -> null;
        };
    }

    /** The {@code VectorOperators} field that implements {@code k} through {@code lanewise}, or null. */
    static String operator(BinaryKind k) {
        return BinaryF32Loops.has(k) ? k.name() : null;
    }

    /** The method here that implements {@code k}, or null. */
    static String method(UnaryKind k) {
        return switch (k) {
            case RELU, GELU, SILU, SIGMOID, RSQRT, RECIPROCAL, SIGN, ERF, TANH, EXP, LOG, ATAN ->
                    k.name().toLowerCase(java.util.Locale.ROOT);
            case GELU_TANH -> "geluTanh";
            default -> null;
        };
    }

    /**
     * Whether a generated loop can apply {@code k}; a program with any other step runs interpreted. sin, cos and
     * tan are not among them: their range check ({@link VectorTrig#beyondReduction}) pushed a generated loop past
     * C2's inlining node budget, which then boxed a vector per iteration; a program with them runs interpreted
     * (StrictMath, the same bits in every tier), as a standalone op they run their vector loops.
     */
    static boolean vectorizes(UnaryKind k) {
        return operator(k) != null || method(k) != null;
    }

    static FloatVector relu(FloatVector v) {
        return v.max(0f);
    }

    static FloatVector gelu(FloatVector v) {
        return VectorMath.gelu(v);
    }

    static FloatVector geluTanh(FloatVector v) {
        return VectorMath.geluTanh(v);
    }

    static FloatVector silu(FloatVector v) {
        return VectorMath.silu(v);
    }

    static FloatVector sigmoid(FloatVector v) {
        return VectorMath.sigmoid(v);
    }

    static FloatVector rsqrt(FloatVector v) {
        return FloatVector.broadcast(VectorMath.F, 1f).div(v.sqrt());
    }

    static FloatVector reciprocal(FloatVector v) {
        return FloatVector.broadcast(VectorMath.F, 1f).div(v);
    }

    static FloatVector sign(FloatVector v) {
        return VectorMath.sign(v);
    }

    static FloatVector erf(FloatVector v) {
        return VectorMath.erf(v);
    }

    static FloatVector tanh(FloatVector v) {
        return VectorMath.tanh(v);
    }

    static FloatVector exp(FloatVector v) {
        return VectorMath.exp(v);
    }

    /**
     * log through the output's memory at this iteration ({@code out[at, at + vector bytes)}, written by the loop
     * after the last step, and read by none before: every operand is loaded first): see
     * {@link VectorMath#log(FloatVector, java.lang.foreign.MemorySegment, long)}.
     */
    static FloatVector log(FloatVector v, java.lang.foreign.MemorySegment out, long at) {
        return VectorMath.log(v, out, at);
    }

    /** Whether {@code k}'s method here takes the output segment and byte offset too ({@link #log}). */
    static boolean needsOutput(UnaryKind k) {
        return k == UnaryKind.LOG;
    }

    static FloatVector atan(FloatVector v) {
        return VectorTrig.atan(v);
    }
}
