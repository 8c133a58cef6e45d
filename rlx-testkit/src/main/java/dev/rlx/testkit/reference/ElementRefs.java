package dev.rlx.testkit.reference;

import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.UnaryKind;
import java.util.Random;
import java.util.function.DoubleBinaryOperator;
import java.util.function.DoubleUnaryOperator;

/** Float64 references of the element-wise ops (java.lang.Math; erf by its series) and their test inputs. */
public final class ElementRefs {
    private ElementRefs() {}

    /**
     * erf by its everywhere-convergent series of positive terms (Abramowitz and Stegun 7.1.6),
     * {@code erf x = 2/sqrt(pi) e^{-x^2} sum_n 2^n x^{2n+1} / (1*3*...*(2n+1))}: no cancellation, so the
     * relative error stays near the number of terms times 1e-16. Past |x| = 6, erfc(x) < 2.2e-17 is below
     * half an ulp of 1 and erf is +-1 in double.
     */
    public static double erf(double x) {
        if (Double.isNaN(x)) {
            return x;
        }
        double a = Math.abs(x);
        if (a > 6) {
            return Math.copySign(1.0, x);
        }
        double term = a;
        double sum = a;
        for (int n = 1; term > 1e-17 * sum; n++) {
            term *= 2 * a * a / (2 * n + 1);
            sum += term;
        }
        return Math.copySign(2 / Math.sqrt(Math.PI) * Math.exp(-a * a) * sum, x);
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

    /**
     * {@code a mod b} with the sign of {@code b} (NumPy's {@code mod}): IEEE {@code fmod} is exact, and adding
     * {@code b} when the signs differ rounds once.
     */
    public static double flooredMod(double a, double b) {
        double r = a % b;
        return r != 0 && (r < 0) != (b < 0) ? r + b : r;
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
            case MOD -> ElementRefs::flooredMod;
            case AND -> (a, b) -> (a != 0 && b != 0) ? 1 : 0;
            case OR -> (a, b) -> (a != 0 || b != 0) ? 1 : 0;
            case XOR -> (a, b) -> ((a != 0) != (b != 0)) ? 1 : 0;
        };
    }
}
