package dev.rlx.cpu.kernels;

import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.UnaryKind;

/**
 * The scalar definition of every element-wise function in double precision: the reference the vector
 * kernels are tested against, and the path for dtypes other than f32.
 */
public final class ScalarMath {
    private ScalarMath() {}

    private static final double TWO_OVER_SQRT_PI = 1.1283791670955126;
    private static final double INV_SQRT_PI = 0.5641895835477563;

    /** erf(x) to about 1e-15: Taylor series below |x| = 3, continued fraction for erfc above. */
    public static double erf(double x) {
        double a = Math.abs(x);
        if (Double.isNaN(x)) {
            return x;
        }
        if (a < 3) {
            double term = a;
            double sum = a;
            double x2 = a * a;
            for (int n = 1; n < 200; n++) {
                term *= -x2 / n;
                double add = term / (2 * n + 1);
                sum += add;
                if (Math.abs(add) < 1e-17 * Math.abs(sum)) {
                    break;
                }
            }
            return Math.copySign(TWO_OVER_SQRT_PI * sum, x);
        }
        if (a > 27) {
            return Math.copySign(1.0, x);
        }
        // erfc(a) = exp(-a^2)/sqrt(pi) * 1/(a + 1/2/(a + 1/(a + 3/2/(a + ...)))), evaluated bottom-up.
        double f = a;
        for (int k = 60; k >= 1; k--) {
            f = a + (k / 2.0) / f;
        }
        double erfc = StrictMath.exp(-a * a) * INV_SQRT_PI / f;
        return Math.copySign(1 - erfc, x);
    }

    public static double unary(UnaryKind k, double x) {
        return switch (k) {
            case RELU -> x > 0 ? x : (Double.isNaN(x) ? x : 0.0);
            case GELU -> 0.5 * x * (1 + erf(x / Math.sqrt(2)));
            case GELU_TANH -> 0.5 * x * (1 + StrictMath.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x * x * x)));
            case SILU -> x / (1 + StrictMath.exp(-x));
            case SIGMOID -> 1 / (1 + StrictMath.exp(-x));
            case TANH -> StrictMath.tanh(x);
            case EXP -> StrictMath.exp(x);
            case LOG -> StrictMath.log(x);
            case SQRT -> Math.sqrt(x);
            case RSQRT -> 1 / Math.sqrt(x);
            case RECIPROCAL -> 1 / x;
            case NEG -> -x;
            case ABS -> Math.abs(x);
            case SIGN -> Math.signum(x);
            case SIN -> StrictMath.sin(x);
            case COS -> StrictMath.cos(x);
            case TAN -> StrictMath.tan(x);
            case ATAN -> StrictMath.atan(x);
            case ERF -> erf(x);
            case ROUND -> Math.rint(x);
            case FLOOR -> Math.floor(x);
            case CEIL -> Math.ceil(x);
            case NOT -> x == 0 ? 1 : 0;
        };
    }

    /** Integer unary ops (wrapping); only the NUMERIC and BOOL kinds reach here. */
    public static long unary(UnaryKind k, long x) {
        return switch (k) {
            case RELU -> Math.max(x, 0);
            case NEG -> -x;
            case ABS -> Math.abs(x);
            case SIGN -> Long.signum(x);
            case NOT -> x == 0 ? 1 : 0;
            default -> throw new IllegalArgumentException(k + " is not defined on integers");
        };
    }

    public static double binary(BinaryKind k, double a, double b) {
        return switch (k) {
            case ADD -> a + b;
            case SUB -> a - b;
            case MUL -> a * b;
            case DIV -> a / b;
            case POW -> StrictMath.pow(a, b);
            case MAX -> Math.max(a, b);
            case MIN -> Math.min(a, b);
            case MOD -> {
                double r = a % b;
                yield r != 0 && (r < 0) != (b < 0) ? r + b : r;
            }
            case AND -> (a != 0 && b != 0) ? 1 : 0;
            case OR -> (a != 0 || b != 0) ? 1 : 0;
            case XOR -> ((a != 0) != (b != 0)) ? 1 : 0;
        };
    }

    /** Integer binary ops: wrapping arithmetic; DIV truncates, MOD floors; both give 0 for a zero divisor. */
    public static long binary(BinaryKind k, long a, long b) {
        return switch (k) {
            case ADD -> a + b;
            case SUB -> a - b;
            case MUL -> a * b;
            case DIV -> b == 0 ? 0 : (b == -1 ? -a : a / b);
            case MOD -> b == 0 ? 0 : Math.floorMod(a, b);
            case MAX -> Math.max(a, b);
            case MIN -> Math.min(a, b);
            case AND -> (a != 0 && b != 0) ? 1 : 0;
            case OR -> (a != 0 || b != 0) ? 1 : 0;
            case XOR -> ((a != 0) != (b != 0)) ? 1 : 0;
            case POW -> throw new IllegalArgumentException("pow is float only");
        };
    }
}
