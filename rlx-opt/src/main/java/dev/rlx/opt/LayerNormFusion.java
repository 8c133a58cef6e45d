package dev.rlx.opt;

import static dev.rlx.opt.Patterns.isBinary;
import static dev.rlx.opt.Patterns.scalarConstant;

import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.ReduceKind;
import dev.rlx.ir.Shape;
import dev.rlx.ir.UnaryKind;
import dev.rlx.ir.Value;
import java.util.List;

/**
 * Layer norm written out in element-wise ops, as exporters such as PyTorch's ONNX export emit it, becomes one
 * {@link Op.LayerNorm}:
 * <pre>
 *   m = mean(x, trailing axes); d = x - m; v = mean(d^2 or d*d, same axes)
 *   y = d / sqrt(v + eps) * gamma + beta
 * </pre>
 * {@code eps} must be a positive scalar constant, {@code gamma} and {@code beta} exactly x's normalised dims,
 * and the intermediate values must have no other readers. One kernel then reads x twice instead of nine
 * kernels writing seven tensors, and the norm's statistics are summed in double.
 */
public final class LayerNormFusion extends NodeFusion<LayerNormFusion.Match> {
    @Override
    public String name() {
        return "fuse_layer_norm";
    }

    /** A matched norm: the values the fused op reads. */
    record Match(Value x, Value gamma, Value beta, int axis, float eps) {}

    @Override
    List<Value> emit(Match m, Rewriter r) {
        return r.emit(new Op.LayerNorm(m.axis(), m.eps()), List.of(r.get(m.x()), r.get(m.gamma()), r.get(m.beta())));
    }

    /** {@code n} as the final {@code + beta} of a written-out layer norm, or null. */
    @Override
    Match match(Node n, Uses uses) {
        if (!isBinary(n, BinaryKind.ADD) || !n.output().dtype().isFloat()) {
            return null;
        }
        for (int side = 0; side < 2; side++) {
            Value scaled = n.inputs().get(side);
            Value beta = n.inputs().get(1 - side);
            Node mul = uses.single(scaled);
            if (mul == null || !isBinary(mul, BinaryKind.MUL)) {
                continue;
            }
            for (int s2 = 0; s2 < 2; s2++) {
                Node div = uses.single(mul.inputs().get(s2));
                Value gamma = mul.inputs().get(1 - s2);
                Match m = div == null ? null : normalized(div, uses, gamma, beta, n);
                if (m != null) {
                    return m;
                }
            }
        }
        return null;
    }

    /** {@code div} as {@code (x - mean) / sqrt(var + eps)}, completed with gamma and beta, or null. */
    private static Match normalized(Node div, Uses uses, Value gamma, Value beta, Node out) {
        if (!isBinary(div, BinaryKind.DIV)) {
            return null;
        }
        Node sub = div.inputs().get(0).node();
        Node sqrt = uses.single(div.inputs().get(1));
        if (!isBinary(sub, BinaryKind.SUB) || sqrt == null
                || !(sqrt.op() instanceof Op.Unary u && u.op() == UnaryKind.SQRT)) {
            return null;
        }
        Node addEps = uses.single(sqrt.inputs().get(0));
        if (addEps == null || !isBinary(addEps, BinaryKind.ADD)) {
            return null;
        }
        Float eps = null;
        Node var = null;
        for (int s = 0; s < 2 && eps == null; s++) {
            eps = scalarConstant(addEps.inputs().get(1 - s));
            var = uses.single(addEps.inputs().get(s));
        }
        if (eps == null || var == null || !(eps > 0)) {
            return null;
        }
        Value x = sub.inputs().get(0);
        Node mean = uses.single(sub.inputs().get(1));
        Node square = var.op() instanceof Op.Reduce ? uses.single(var.inputs().get(0)) : null;
        int axis = meanAxis(mean, x);
        if (axis < 0 || !squares(square, sub.output()) || meanAxis(var, square.output()) != axis) {
            return null;
        }
        // x - mean is read by the square (once, or twice as d * d) and the division, nothing else
        if (uses.of(sub.output()) != (isBinary(square, BinaryKind.MUL) ? 3 : 2)) {
            return null;
        }
        if (!fitsTrailing(gamma, x, axis) || !fitsTrailing(beta, x, axis) || !out.shape().equals(x.shape())) {
            return null;
        }
        return new Match(x, gamma, beta, axis, eps);
    }

    /** {@code d^2} or {@code d*d}. */
    private static boolean squares(Node n, Value d) {
        if (n == null) {
            return false;
        }
        if (isBinary(n, BinaryKind.MUL)) {
            return n.inputs().get(0).equals(d) && n.inputs().get(1).equals(d);
        }
        Float p = isBinary(n, BinaryKind.POW) ? scalarConstant(n.inputs().get(1)) : null;
        return p != null && p == 2f && n.inputs().get(0).equals(d);
    }

    /**
     * The first axis of a keep-dims mean of {@code of} over its trailing axes {@code [axis, rank)}, or -1 when
     * {@code n} is something else.
     */
    private static int meanAxis(Node n, Value of) {
        if (n == null || !(n.op() instanceof Op.Reduce r) || r.op() != ReduceKind.MEAN || !r.keepDims()
                || !n.inputs().get(0).equals(of) || r.axes().isEmpty()) {
            return -1;
        }
        int rank = of.rank();
        List<Integer> axes = r.axes().stream().map(a -> a < 0 ? a + rank : a).sorted().toList();
        for (int i = 0; i < axes.size(); i++) {
            if (axes.get(i) != rank - axes.size() + i) {
                return -1;
            }
        }
        return rank - axes.size();
    }

    /** {@code p} is exactly x's trailing dims {@code [axis, rank)} in x's dtype, as the fused op wants it. */
    private static boolean fitsTrailing(Value p, Value x, int axis) {
        return p.shape().equals(Shape.of(x.dtype(), x.shape().dimList().subList(axis, x.rank())));
    }
}
