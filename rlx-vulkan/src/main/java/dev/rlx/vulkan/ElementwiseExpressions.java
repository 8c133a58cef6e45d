package dev.rlx.vulkan;

import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.CompareKind;
import dev.rlx.ir.DType;
import dev.rlx.ir.UnaryKind;
import java.util.EnumSet;
import java.util.Set;

/**
 * The GLSL expression elementwise.comp evaluates for each element-wise op, over operands {@code a}, {@code b},
 * {@code c} in their compute types (see {@link ShaderTypes}); the result is converted to the output's.
 */
final class ElementwiseExpressions {
    private ElementwiseExpressions() {}

    /** Unary functions GLSL has only in single precision: refused on f64. */
    static final Set<UnaryKind> SINGLE_PRECISION_ONLY = EnumSet.of(UnaryKind.SIN, UnaryKind.COS, UnaryKind.TAN,
            UnaryKind.ATAN, UnaryKind.ERF, UnaryKind.GELU, UnaryKind.GELU_TANH);

    static String unary(UnaryKind k, DType t) {
        String one = t.isFloat() ? "A_C(1.0)" : "A_C(1)";
        if (t == DType.F64) { // exp and log in double precision (math.glsl): GLSL's take floats only
            switch (k) {
                case EXP -> { return "rlxExpD(a)"; }
                case LOG -> { return "rlxLogD(a)"; }
                case SILU -> { return "(a / (1.0 + rlxExpD(-a)))"; }
                case SIGMOID -> { return "(1.0 / (1.0 + rlxExpD(-a)))"; }
                default -> { }
            }
        }
        return switch (k) {
            case RELU -> t.isFloat() ? "(isnan(a) ? a : max(a, A_C(0)))" : "rlxMax(a, A_C(0))";
            case GELU -> "(0.5 * a * (1.0 + rlxErf(a * 0.70710678118654752)))";
            case GELU_TANH -> "(0.5 * a * (1.0 + rlxTanh(0.7978845608028654 * (a + 0.044715 * a * a * a))))";
            case SILU -> "(a / (1.0 + exp(-a)))";
            case SIGMOID -> "(1.0 / (1.0 + exp(-a)))";
            case TANH -> "rlxTanh(a)";
            case EXP -> "exp(a)";
            case LOG -> "log(a)";
            case SQRT -> "sqrt(a)";
            case RSQRT -> "(" + one + " / sqrt(a))";
            case RECIPROCAL -> "(" + one + " / a)";
            case NEG -> "(-a)";
            case ABS -> "rlxAbs(a)";
            case SIGN -> "rlxSign(a)";
            case SIN -> "sin(a)";
            case COS -> "cos(a)";
            case TAN -> "tan(a)";
            case ATAN -> t == DType.F32 || !t.isFloat() ? "rlxAtan(a)" : "rlxAtan(float(a))";
            case ERF -> "rlxErf(a)";
            case ROUND -> "roundEven(a)";
            case FLOOR -> "floor(a)";
            case CEIL -> "ceil(a)";
            case NOT -> "(a == 0u ? 1u : 0u)";
        };
    }

    static String binary(BinaryKind k) {
        return switch (k) {
            case ADD -> "(a + b)";
            case SUB -> "(a - b)";
            case MUL -> "(a * b)";
            case DIV -> "rlxDiv(a, b)";
            case POW -> "rlxPow(a, b)";
            case MAX -> "rlxMax(a, b)";
            case MIN -> "rlxMin(a, b)";
            case MOD -> "rlxMod(a, b)";
            case AND -> "((a != 0u && b != 0u) ? 1u : 0u)";
            case OR -> "((a != 0u || b != 0u) ? 1u : 0u)";
            case XOR -> "(((a != 0u) != (b != 0u)) ? 1u : 0u)";
        };
    }

    /** Comparisons give 0 or 1; with NaN only NE is true. */
    static String compare(CompareKind k) {
        return switch (k) {
            case EQ -> "(a == b ? 1u : 0u)";
            case NE -> "(a == b ? 0u : 1u)";
            case LT -> "(a < b ? 1u : 0u)";
            case LE -> "(a <= b ? 1u : 0u)";
            case GT -> "(a > b ? 1u : 0u)";
            case GE -> "(a >= b ? 1u : 0u)";
        };
    }

    static String where() {
        return "(a != 0u ? b : c)";
    }

    /** {@code a} (of dtype {@code from}) converted to {@code to}'s compute type with the IR's cast semantics. */
    static String cast(DType from, DType to) {
        if (to == DType.BOOL) {
            return from.isFloat() ? "(a != 0.0 ? 1u : 0u)" : "(a != 0 ? 1u : 0u)";
        }
        if (from.isFloat() && to.isInteger()) {
            return switch (to) {
                case I8 -> "rlxToInt(a, -128.0, 127.0)";
                case I16 -> "rlxToInt(a, -32768.0, 32767.0)";
                case I32 -> "rlxToInt(a, -2147483648.0, 2147483647.0)";
                case I64 -> "rlxToI64(a)";
                case U8 -> "rlxToUint(a, 255.0)";
                case U32 -> "rlxToUint(a, 4294967295.0)";
                default -> throw new VulkanException("Vulkan: no cast from " + from + " to " + to);
            };
        }
        if (from.isInteger() && to.isInteger() && to.byteSize() < from.byteSize()) {
            return "a"; // the store wraps, as a two's-complement narrowing does
        }
        return "a";
    }
}
