package dev.rlx.opt;

import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.UnaryKind;
import dev.rlx.ir.Value;
import java.util.ArrayList;
import java.util.List;

/**
 * Removes ops that do nothing and merges chains: {@code x+0}, {@code x-0}, {@code x*1}, {@code x/1} (when
 * the constant does not broadcast {@code x} to a bigger shape), casts, reshapes, expands and transposes to
 * what {@code x} already is, full slices, one-input concats, {@code -(-x)}; a reshape of a reshape becomes
 * one reshape and a transpose of a transpose one transpose (or nothing); {@code pow(x, 2)} of a float becomes
 * {@code x * x}.
 *
 * <p>{@code pow(x, 2)} is what exporters write for a square (the magnitude of an STFT in audio front ends), and a
 * pow has no vector form, so a fused program with one ran interpreted at ~8 ns an element. The bits are the same:
 * fdlibm's pow (StrictMath) returns {@code x*x} for {@code y == 2}, and an f32 square done in double is exact before
 * its one rounding to f32.
 */
public final class AlgebraicSimplification implements Pass {
    @Override
    public String name() {
        return "simplify";
    }

    @Override
    public Graph apply(Graph g) {
        return Rewriter.rewrite(g, (n, r) -> {
            Value same = identityOperand(n);
            if (same != null) {
                r.replace(n.output(), r.get(same));
                return;
            }
            // Chains are matched on the rewritten graph, so a chain of any length folds into one op.
            Value in = n.inputs().isEmpty() ? null : r.get(n.inputs().get(0));
            Node p = in == null ? null : in.node();
            switch (n.op()) {
                case Op.Reshape rs when p.op() instanceof Op.Reshape -> {
                    Value src = p.inputs().get(0);
                    r.replace(n.output(), src.shape().equals(n.shape()) ? src : r.emit(rs, List.of(src)).get(0));
                }
                case Op.Transpose t when p.op() instanceof Op.Transpose inner -> {
                    Value src = p.inputs().get(0);
                    List<Integer> composed = new ArrayList<>();
                    boolean identity = true;
                    for (int i = 0; i < t.perm().size(); i++) {
                        composed.add(inner.perm().get(t.perm().get(i)));
                        identity &= composed.get(i) == i;
                    }
                    r.replace(n.output(), identity ? src : r.emit(new Op.Transpose(composed), List.of(src)).get(0));
                }
                case Op.Binary b when b.op() == BinaryKind.POW && isSquare(n) ->
                        r.replace(n.output(), r.emit(new Op.Binary(BinaryKind.MUL), List.of(in, in)).get(0));
                case Op.Unary u when u.op() == UnaryKind.NEG && p.op() instanceof Op.Unary inner
                        && inner.op() == UnaryKind.NEG -> r.replace(n.output(), p.inputs().get(0));
                default -> r.copy(n);
            }
        });
    }

    /** The operand {@code n} passes through unchanged, or null. */
    private static Value identityOperand(Node n) {
        if (n.outputs().size() != 1 || n.inputs().isEmpty()) {
            return null;
        }
        Value x = n.inputs().get(0);
        boolean sameShape = x.shape().equals(n.shape());
        return switch (n.op()) {
            case Op.Cast c -> sameShape ? x : null;
            case Op.Reshape rs -> sameShape ? x : null;
            case Op.Expand e -> sameShape ? x : null;
            case Op.Concat c -> n.inputs().size() == 1 ? x : null;
            case Op.Slice s -> sameShape && s.step() == 1 && s.start() == 0 ? x : null;
            case Op.Transpose t -> {
                for (int i = 0; i < t.perm().size(); i++) {
                    if (t.perm().get(i) != i) {
                        yield null;
                    }
                }
                yield x;
            }
            case Op.Binary b -> neutral(n, b.op());
            default -> null;
        };
    }

    /** For {@code x op c} (or {@code c op x} when commutative) with {@code c} a neutral constant: x. */
    private static Value neutral(Node n, BinaryKind k) {
        double unit = switch (k) {
            case ADD, SUB -> 0;
            case MUL, DIV -> 1;
            default -> Double.NaN;
        };
        if (Double.isNaN(unit) || !n.shape().dtype().isFloat() && !n.shape().dtype().isInteger()) {
            return null;
        }
        for (int i = 0; i < 2; i++) {
            Value x = n.inputs().get(i);
            Value c = n.inputs().get(1 - i);
            boolean allowed = i == 0 || k == BinaryKind.ADD || k == BinaryKind.MUL; // c - x, c / x are not x
            if (allowed && x.shape().equals(n.shape()) && c.node().op() instanceof Op.Constant k2
                    && allEqual(k2.value(), unit)) {
                return x;
            }
        }
        return null;
    }

    /** {@code pow(x, c)} of floats with every element of the constant {@code c} 2, not broadcasting x. */
    private static boolean isSquare(Node n) {
        Value x = n.inputs().get(0);
        Value c = n.inputs().get(1);
        return x.dtype().isFloat() && x.shape().equals(n.shape()) && c.node().op() instanceof Op.Constant k
                && allEqual(k.value(), 2);
    }

    private static boolean allEqual(Tensor t, double v) {
        long n = t.shape().elementCount();
        for (long i = 0; i < n; i++) {
            if (t.getDouble(i) != v) {
                return false;
            }
        }
        return n > 0;
    }
}
