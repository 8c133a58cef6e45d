package dev.rlx.opt.decompose;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.UnaryKind;
import dev.rlx.ir.Value;
import dev.rlx.opt.Rewriter;
import java.util.List;

/**
 * GELU (erf form), tanh-approximate GELU, SiLU and sigmoid in primitive unary and binary ops. Sigmoid and SiLU
 * divide by {@code 1 + exp(-x)}: for very negative x that is +inf and the result 0 (sigmoid) or -0 (SiLU),
 * never NaN; {@code exp(x) / (1 + exp(x))} would give inf / inf = NaN for large x.
 */
final class Activations {
    private Activations() {}

    /** The composite unary function of {@code n} ({@link dev.rlx.opt.Primitives#COMPOSITE_UNARY}). */
    static List<Value> apply(Node n, Rewriter r) {
        UnaryKind k = ((Op.Unary) n.op()).op();
        Graph g = r.graph();
        Value x = r.get(n.inputs().get(0));
        return List.of(switch (k) {
            case GELU -> gelu(g, x);
            case GELU_TANH -> geluTanh(g, x);
            case SILU -> g.div(x, onePlusExpNeg(g, x));
            case SIGMOID -> g.reciprocal(onePlusExpNeg(g, x));
            default -> throw new IllegalArgumentException(k.label() + " is primitive; it has no decomposition");
        });
    }

    /**
     * {@code x * 0.5 * (erf(x / sqrt 2) + 1)}, the CPU kernel's formula and accuracy. For x below about -3 the
     * sum cancels (erf near -1): measured on [-20, 20] against float64, the absolute error stays under 2.6e-7
     * but the relative error of the vanishing result reaches 100%, in the kernel too; with no erfc primitive
     * there is no stable tail to write.
     */
    private static Value gelu(Graph g, Value x) {
        Value erf = g.erf(g.mul(x, g.scalar(x.dtype(), 1 / Math.sqrt(2))));
        return g.mul(g.mul(x, g.scalar(x.dtype(), 0.5)), g.add(erf, g.scalar(x.dtype(), 1)));
    }

    /**
     * {@code 0.5 x (1 + tanh(u))} with {@code u = sqrt(2/pi) (x + 0.044715 x^3)}, written as
     * {@code x / (1 + exp(-2u))} (since {@code 1 + tanh(u) = 2 sigmoid(2u)}), with {@code 2u} as
     * {@code x (a + b x^2)}: no cancellation for negative x, where {@code 1 + tanh(u)} loses every digit.
     * Measured on [-20, 20] against float64: relative error at most 1.0e-5 (the rounding of exp's argument,
     * up to about 80, times 80), where the CPU kernel's tanh form reaches 100% below x = -3.
     */
    private static Value geluTanh(Graph g, Value x) {
        double a = 2 * Math.sqrt(2 / Math.PI);
        double b = a * 0.044715;
        Value twoU = g.mul(x, g.add(g.mul(g.mul(x, x), g.scalar(x.dtype(), b)), g.scalar(x.dtype(), a)));
        return g.div(x, onePlusExpNeg(g, twoU));
    }

    /** {@code 1 + exp(-v)}. */
    private static Value onePlusExpNeg(Graph g, Value v) {
        return g.add(g.exp(g.neg(v)), g.scalar(v.dtype(), 1));
    }
}
