package dev.rlx.opt;

import static dev.rlx.opt.Patterns.isBinary;
import static dev.rlx.opt.Patterns.scalarConstant;

import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.UnaryKind;
import dev.rlx.ir.Value;
import java.util.ArrayList;
import java.util.List;

/**
 * The exact GELU written out with erf, as PyTorch's ONNX export emits it, becomes one {@code gelu(x)}:
 * <pre>
 *   x * (erf(x / sqrt 2) + 1) * 0.5       (the three factors in any order and grouping;
 *                                          x * (1 / sqrt 2) for the division)
 * </pre>
 * The intermediate values must have no other reader. As one unary op, the GELU can then join the element-wise
 * epilogue of the matmul before it, where {@code x} read twice kept the written-out form out.
 */
public final class GeluFusion extends NodeFusion<Value> {
    private static final float SQRT2 = (float) Math.sqrt(2);

    @Override
    public String name() {
        return "fuse_gelu";
    }

    @Override
    List<Value> emit(Value x, Rewriter r) {
        return r.emit(new Op.Unary(UnaryKind.GELU), List.of(r.get(x)));
    }

    /** The x of which {@code n} (the outer product) is the written-out GELU, or null. */
    @Override
    Value match(Node n, Uses uses) {
        if (!isBinary(n, BinaryKind.MUL) || !n.output().dtype().isFloat()) {
            return null;
        }
        // the three factors: x, the half and (erf(..) + 1), one of the operands being the inner product
        for (int side = 0; side < 2; side++) {
            Node inner = uses.single(n.inputs().get(side));
            if (!isBinary(inner, BinaryKind.MUL)) {
                continue;
            }
            List<Value> factors = new ArrayList<>(List.of(n.inputs().get(1 - side), inner.inputs().get(0),
                    inner.inputs().get(1)));
            Value x = fromFactors(factors, uses);
            if (x != null && x.shape().equals(n.output().shape())) {
                return x;
            }
        }
        return null;
    }

    private static Value fromFactors(List<Value> f, Uses uses) {
        for (int half = 0; half < 3; half++) {
            Float c = scalarConstant(f.get(half));
            if (c == null || c != 0.5f) {
                continue;
            }
            for (int onePlus = 0; onePlus < 3; onePlus++) {
                if (onePlus == half) {
                    continue;
                }
                Value x = f.get(3 - half - onePlus);
                if (isOnePlusErf(f.get(onePlus), x, uses)) {
                    return x;
                }
            }
        }
        return null;
    }

    /** {@code v} is {@code erf(x / sqrt 2) + 1} (either order) with single-use intermediates. */
    private static boolean isOnePlusErf(Value v, Value x, Uses uses) {
        Node add = uses.single(v);
        if (!isBinary(add, BinaryKind.ADD)) {
            return false;
        }
        for (int side = 0; side < 2; side++) {
            Float one = scalarConstant(add.inputs().get(1 - side));
            Node erf = uses.single(add.inputs().get(side));
            if (one != null && one == 1f && erf != null && erf.op() instanceof Op.Unary u && u.op() == UnaryKind.ERF
                    && isOverSqrt2(uses.single(erf.inputs().get(0)), x)) {
                return true;
            }
        }
        return false;
    }

    /** {@code n} is {@code x / sqrt 2} or {@code x * (1 / sqrt 2)}. */
    private static boolean isOverSqrt2(Node n, Value x) {
        if (isBinary(n, BinaryKind.DIV)) {
            return n.inputs().get(0).equals(x) && near(scalarConstant(n.inputs().get(1)), SQRT2);
        }
        if (isBinary(n, BinaryKind.MUL)) {
            for (int side = 0; side < 2; side++) {
                if (n.inputs().get(side).equals(x) && near(scalarConstant(n.inputs().get(1 - side)), 1 / SQRT2)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean near(Float c, float want) {
        return c != null && Math.abs(c - want) <= 1e-6f * want;
    }
}
