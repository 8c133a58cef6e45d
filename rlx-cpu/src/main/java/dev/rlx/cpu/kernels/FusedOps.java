package dev.rlx.cpu.kernels;

import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.UnaryKind;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;

/**
 * The f32 vector form of each element-wise op a generated {@link FusedLoop} calls, one static method per op
 * with a uniform signature (so the generator emits one {@code invokestatic} per step). Each mirrors the loop
 * of the same op in {@link UnaryF32Loops} or {@link BinaryF32Loops}; all are small enough that C2 always
 * inlines them into the generated loop.
 */
final class FusedOps {
    private FusedOps() {}

    /** The method implementing {@code k}, or null when it has no vector form (it then runs interpreted). */
    static String name(UnaryKind k) {
        return switch (k) {
            case RELU, GELU, SILU, SIGMOID, TANH, EXP, LOG, SQRT, RSQRT, RECIPROCAL, NEG, ABS, SIGN, SIN, COS, TAN,
                 ATAN, ERF -> k.name().toLowerCase(java.util.Locale.ROOT);
            case GELU_TANH -> "geluTanh";
            default -> null;
        };
    }

    /** The method implementing {@code k}, or null when it has no vector form. */
    static String name(BinaryKind k) {
        return BinaryF32Loops.has(k) ? k.name().toLowerCase(java.util.Locale.ROOT) : null;
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

    static FloatVector tanh(FloatVector v) {
        return v.lanewise(VectorOperators.TANH);
    }

    static FloatVector exp(FloatVector v) {
        return v.lanewise(VectorOperators.EXP);
    }

    static FloatVector log(FloatVector v) {
        return v.lanewise(VectorOperators.LOG);
    }

    static FloatVector sqrt(FloatVector v) {
        return v.sqrt();
    }

    static FloatVector rsqrt(FloatVector v) {
        return FloatVector.broadcast(VectorMath.F, 1f).div(v.sqrt());
    }

    static FloatVector reciprocal(FloatVector v) {
        return FloatVector.broadcast(VectorMath.F, 1f).div(v);
    }

    static FloatVector neg(FloatVector v) {
        return v.neg();
    }

    static FloatVector abs(FloatVector v) {
        return v.abs();
    }

    static FloatVector sign(FloatVector v) {
        return VectorMath.sign(v);
    }

    static FloatVector sin(FloatVector v) {
        return v.lanewise(VectorOperators.SIN);
    }

    static FloatVector cos(FloatVector v) {
        return v.lanewise(VectorOperators.COS);
    }

    static FloatVector tan(FloatVector v) {
        return v.lanewise(VectorOperators.TAN);
    }

    static FloatVector atan(FloatVector v) {
        return v.lanewise(VectorOperators.ATAN);
    }

    static FloatVector erf(FloatVector v) {
        return VectorMath.erf(v);
    }

    static FloatVector add(FloatVector a, FloatVector b) {
        return a.add(b);
    }

    static FloatVector sub(FloatVector a, FloatVector b) {
        return a.sub(b);
    }

    static FloatVector mul(FloatVector a, FloatVector b) {
        return a.mul(b);
    }

    static FloatVector div(FloatVector a, FloatVector b) {
        return a.div(b);
    }

    static FloatVector max(FloatVector a, FloatVector b) {
        return a.max(b);
    }

    static FloatVector min(FloatVector a, FloatVector b) {
        return a.min(b);
    }
}
