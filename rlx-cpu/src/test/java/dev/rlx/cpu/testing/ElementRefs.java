package dev.rlx.cpu.testing;

import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.UnaryKind;
import java.util.Random;
import java.util.function.DoubleBinaryOperator;
import java.util.function.DoubleUnaryOperator;

/** Float64 references of the element-wise ops (java.lang.Math; erf by numerical integration) and their test inputs. */
public final class ElementRefs {
    private ElementRefs() {}

    /** erf by Simpson integration of 2/sqrt(pi) exp(-t^2) on [0, x] with 2000 panels: error < 1e-13. */
    public static double erf(double x) {
        int n = 2000;
        double h = x / n;
        double s = 1 + Math.exp(-x * x);
        for (int i = 1; i < n; i++) {
            double t = i * h;
            s += (i % 2 == 0 ? 2 : 4) * Math.exp(-t * t);
        }
        return s * h / 3 * 2 / Math.sqrt(Math.PI);
    }

    public static DoubleUnaryOperator ref(UnaryKind k) {
        return switch (k) {
            case RELU -> x -> Math.max(x, 0);
            case GELU -> x -> 0.5 * x * (1 + erf(x / Math.sqrt(2)));
            case GELU_TANH -> x -> 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x * x * x)));
            case SILU -> x -> x / (1 + Math.exp(-x));
            case SIGMOID -> x -> 1 / (1 + Math.exp(-x));
            case TANH -> Math::tanh;
            case EXP -> Math::exp;
            case LOG -> Math::log;
            case SQRT -> Math::sqrt;
            case RSQRT -> x -> 1 / Math.sqrt(x);
            case RECIPROCAL -> x -> 1 / x;
            case NEG -> x -> -x;
            case ABS -> Math::abs;
            case SIGN -> Math::signum;
            case SIN -> Math::sin;
            case COS -> Math::cos;
            case TAN -> Math::tan;
            case ATAN -> Math::atan;
            case ERF -> ElementRefs::erf;
            case ROUND -> Math::rint;
            case FLOOR -> Math::floor;
            case CEIL -> Math::ceil;
            case NOT -> x -> x == 0 ? 1 : 0;
        };
    }

    /** Inputs inside each function's domain and away from its poles. */
    public static Ref inputs(UnaryKind k, Random r, int... dims) {
        return switch (k) {
            case LOG, SQRT, RSQRT -> Ref.random(r, 0.01, 50, dims);
            case RECIPROCAL -> Ref.random(r, 0.1, 5, dims).map(x -> r.nextBoolean() ? x : -x);
            case TAN -> Ref.random(r, -1.4, 1.4, dims);
            case EXP -> Ref.random(r, -20, 20, dims);
            default -> Ref.random(r, -6, 6, dims);
        };
    }

    public static DoubleBinaryOperator ref(BinaryKind k) {
        return switch (k) {
            case ADD -> Double::sum;
            case SUB -> (a, b) -> a - b;
            case MUL -> (a, b) -> a * b;
            case DIV -> (a, b) -> a / b;
            case POW -> Math::pow;
            case MAX -> Math::max;
            case MIN -> Math::min;
            case MOD -> (a, b) -> a - b * Math.floor(a / b);
            case AND -> (a, b) -> (a != 0 && b != 0) ? 1 : 0;
            case OR -> (a, b) -> (a != 0 || b != 0) ? 1 : 0;
            case XOR -> (a, b) -> ((a != 0) != (b != 0)) ? 1 : 0;
        };
    }
}
