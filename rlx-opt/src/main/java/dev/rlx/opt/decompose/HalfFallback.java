package dev.rlx.opt.decompose;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Shape;
import dev.rlx.ir.ShapeException;
import dev.rlx.ir.Value;
import dev.rlx.opt.Capabilities;
import dev.rlx.opt.Rewriter;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A node on F16/BF16 data run in F32: its half operands are cast to F32 (exact), the same op runs on them,
 * and its half results are cast back (round to nearest even). So the result is rounded once, at the output,
 * from an f32 computation: what the CPU kernels do for half tensors, and at least as accurate as a half
 * kernel that rounds its intermediates. Operands and results of other dtypes (indices, BOOL masks, arg-max
 * positions) pass through.
 */
final class HalfFallback {
    private HalfFallback() {}

    /**
     * Kinds never widened: sources have no operands, a cast of half data is its own F32 form, control flow
     * and custom ops fix their operand dtypes in their bodies and kernels.
     */
    private static final Set<OpKind> KEPT = EnumSet.of(OpKind.INPUT, OpKind.PARAM, OpKind.CONSTANT, OpKind.CAST,
            OpKind.IF, OpKind.WHILE, OpKind.SCAN, OpKind.CUSTOM, OpKind.RNG_NORMAL, OpKind.RNG_UNIFORM);

    /**
     * Whether {@code n} (refused) has half data (its first operand, as {@link Capabilities} reads it), an F32 form
     * with the same result dims, casts the target claims, and either an F32 form the target claims or
     * {@code decomposesInF32}: a decomposition that should run in F32 (see {@link Decompositions#keepsHalf}).
     */
    static boolean applies(Node n, Capabilities target, boolean decomposesInF32) {
        if (KEPT.contains(n.kind()) || n.inputs().isEmpty() || !isHalf(n.inputs().get(0).dtype())) {
            return false;
        }
        List<Shape> wideIn = new ArrayList<>();
        for (Value v : n.inputs()) {
            Shape s = v.shape();
            if (isHalf(s.dtype()) && !target.claims(new Op.Cast(DType.F32), List.of(s))) {
                return false;
            }
            wideIn.add(wide(s));
        }
        List<Shape> wideOut = new ArrayList<>();
        for (Value v : n.outputs()) {
            Shape s = v.shape();
            if (isHalf(s.dtype()) && !target.claims(new Op.Cast(s.dtype()), List.of(wide(s)))) {
                return false;
            }
            wideOut.add(wide(s));
        }
        try {
            if (!n.op().outputShapes(wideIn).equals(wideOut)) {
                return false;
            }
        } catch (ShapeException e) { // the op has no F32 form on these operands
            return false;
        }
        return decomposesInF32 || target.claims(n.op(), wideIn);
    }

    /** {@code n}'s op on F32 copies of its half operands, half results cast back to their dtypes. */
    static List<Value> apply(Node n, Rewriter r) {
        Graph g = r.graph();
        Map<Value, Value> widened = new HashMap<>(); // an operand read twice is cast once
        List<Value> in = new ArrayList<>();
        for (Value v : r.get(n.inputs())) {
            in.add(isHalf(v.dtype()) ? widened.computeIfAbsent(v, x -> g.cast(x, DType.F32)) : v);
        }
        List<Value> results = g.apply(n.op(), in);
        List<Value> out = new ArrayList<>();
        for (int i = 0; i < results.size(); i++) {
            DType was = n.outputs().get(i).dtype();
            out.add(isHalf(was) ? g.cast(results.get(i), was) : results.get(i));
        }
        return out;
    }

    private static boolean isHalf(DType t) {
        return t == DType.F16 || t == DType.BF16;
    }

    private static Shape wide(Shape s) {
        return isHalf(s.dtype()) ? s.withDtype(DType.F32) : s;
    }
}
