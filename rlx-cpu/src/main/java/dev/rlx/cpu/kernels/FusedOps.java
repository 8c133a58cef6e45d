package dev.rlx.cpu.kernels;

import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.UnaryKind;
import jdk.incubator.vector.FloatVector;

/**
 * How a generated {@link FusedLoop} applies each element-wise op to f32 vectors: ops the Vector API has as a
 * lanewise operator go through {@code lanewise(VectorOperators.X)} ({@link #operator}); the rest call a static
 * method here ({@link #method}), each the same expression as the op's loop in {@link UnaryF32Loops}, and all
 * small enough that C2 always inlines them into the generated loop.
 */
final class FusedOps {
    private FusedOps() {}

    /** The {@code VectorOperators} field that implements {@code k} through {@code lanewise}, or null. */
    static String operator(UnaryKind k) {
        return switch (k) {
            case TANH, EXP, LOG, SQRT, NEG, ABS, SIN, COS, TAN, ATAN -> k.name();
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
            case RELU, GELU, SILU, SIGMOID, RSQRT, RECIPROCAL, SIGN, ERF -> k.name().toLowerCase(java.util.Locale.ROOT);
            case GELU_TANH -> "geluTanh";
            default -> null;
        };
    }

    /** Whether a generated loop can apply {@code k}; a program with any other step runs interpreted. */
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
}
