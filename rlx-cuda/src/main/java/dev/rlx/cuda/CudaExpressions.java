package dev.rlx.cuda;

import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.CompareKind;
import dev.rlx.ir.DType;
import dev.rlx.ir.UnaryKind;

/**
 * The CUDA C expression elementwise.cu (and each step of fused.cu) evaluates for each element-wise op, over
 * operands {@code a}, {@code b}, {@code c} in their compute types ({@link CudaTypes}); the result is converted to
 * the output's. The {@code rlx*} functions (math.cuh) are overloaded per compute type, so one expression serves
 * every dtype, f64 included.
 */
final class CudaExpressions {
    private CudaExpressions() {}

    static String unary(UnaryKind k, DType t) {
        String one = t.isFloat() ? "A_C(1.0)" : "A_C(1)";
        return switch (k) {
            case RELU -> t.isFloat() ? "(rlxIsNan(a) ? a : rlxMax(a, A_C(0)))" : "rlxMax(a, A_C(0))";
            case GELU -> "(A_C(0.5) * a * (A_C(1.0) + rlxErf(a * A_C(0.70710678118654752))))";
            case GELU_TANH -> "(A_C(0.5) * a * (A_C(1.0) + rlxTanh(A_C(0.7978845608028654) * (a + A_C(0.044715)"
                    + " * a * a * a))))";
            case SILU -> "(a / (A_C(1.0) + rlxExp(-a)))";
            case SIGMOID -> "(A_C(1.0) / (A_C(1.0) + rlxExp(-a)))";
            case TANH -> "rlxTanh(a)";
            case EXP -> "rlxExp(a)";
            case LOG -> "rlxLog(a)";
            case SQRT -> "rlxSqrt(a)";
            case RSQRT -> "(" + one + " / rlxSqrt(a))";
            case RECIPROCAL -> "rlxDiv(" + one + ", a)";
            case NEG -> "(-a)";
            case ABS -> "rlxAbs(a)";
            case SIGN -> "rlxSign(a)";
            case SIN -> "rlxSin(a)";
            case COS -> "rlxCos(a)";
            case TAN -> "rlxTan(a)";
            case ATAN -> "rlxAtan(a)";
            case ERF -> "rlxErf(a)";
            case ROUND -> "rlxRoundEven(a)";
            case FLOOR -> "rlxFloor(a)";
            case CEIL -> "rlxCeil(a)";
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
                case I8 -> "rlxToInt(a, A_C(-128.0), A_C(127.0))";
                case I16 -> "rlxToInt(a, A_C(-32768.0), A_C(32767.0))";
                case I32 -> "rlxToInt(a, A_C(-2147483648.0), A_C(2147483647.0))";
                case I64 -> "rlxToI64(a)";
                case U8 -> "rlxToUint(a, A_C(255.0))";
                case U32 -> "rlxToUint(a, A_C(4294967295.0))";
                default -> throw new CudaException("CUDA: no cast from " + from + " to " + to);
            };
        }
        return "a"; // widening, int -> float, and narrowing ints (the store wraps, as two's complement does)
    }
}
