package dev.rlx.opt;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.HalfFloats;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Applies a {@link PrecisionPolicy}: re-types F32 tensors to the policy's half type and inserts the casts
 * that keep the graph's inputs and outputs as declared.
 *
 * <ul>
 *   <li>F16 / BF16: every F32 tensor becomes half. Inputs are cast on entry, F32 params and constants are
 *       stored in half (a param still accepts float data), {@code cast(to=f32)} becomes a cast to half,
 *       outputs are cast back to F32. Custom ops keep F32 operands and results.
 *   <li>AMP: only matmul, convolution and attention (the compute ops) take half operands and produce half
 *       results, cast back to F32 for their users; params read only by compute ops are stored in half.
 * </ul>
 */
public final class PrecisionRewrite implements Pass {
    /** Ops AMP runs in reduced precision. */
    static final Set<OpKind> COMPUTE = EnumSet.of(OpKind.MATMUL, OpKind.FUSED_MATMUL, OpKind.CONV, OpKind.CONV_TRANSPOSE,
            OpKind.ATTENTION);

    private final PrecisionPolicy policy;

    public PrecisionRewrite(PrecisionPolicy policy) {
        this.policy = policy;
    }

    @Override
    public String name() {
        return "precision_" + policy.name().toLowerCase();
    }

    @Override
    public Graph apply(Graph g) {
        if (policy.half() == null) {
            return g;
        }
        return policy.mixed() ? mixed(g, policy.half()) : full(g, policy.half());
    }

    // ---------------------------------------------------------------- F16 / BF16 everywhere

    private static Graph full(Graph g, DType half) {
        Graph out = Rewriter.rewrite(g, (n, r) -> {
            switch (n.op()) {
                case Op.Input in when in.shape().dtype() == DType.F32 -> {
                    Value x = r.copy(n).get(0);
                    r.replace(n.output(), r.emit(new Op.Cast(half), List.of(x)).get(0));
                }
                case Op.Param p when p.shape().dtype() == DType.F32 ->
                        r.replace(n, r.emit(new Op.Param(p.name(), p.shape().withDtype(half)), List.of()));
                case Op.Constant c when c.value().dtype() == DType.F32 ->
                        r.replace(n, r.emit(new Op.Constant(toHalf(c.value(), half)), List.of()));
                case Op.Cast c when c.to() == DType.F32 ->
                        r.replace(n, r.emit(new Op.Cast(half), r.get(n.inputs())));
                case Op.Custom c -> island(n, r, half);
                default -> reapply(n, r, half);
            }
        });
        return restoreOutputs(g, out, half);
    }

    /** Applies {@code n} to the rewritten operands; if the op cannot take them, runs it in F32 between casts. */
    private static void reapply(Node n, Rewriter r, DType half) {
        List<Value> in = r.get(n.inputs());
        try {
            List<Value> outs = r.emit(n.op(), in);
            for (int i = 0; i < outs.size(); i++) {
                DType was = n.outputs().get(i).dtype();
                DType now = outs.get(i).dtype();
                if (now != was && !(was == DType.F32 && now == half)) {
                    throw new IllegalStateException("unexpected dtype");
                }
            }
            r.replace(n, outs);
        } catch (RuntimeException e) {
            island(n, r, half);
        }
    }

    /** Runs {@code n} on F32 operands (casting half ones back) and casts its F32 results to half. */
    private static void island(Node n, Rewriter r, DType half) {
        List<Value> in = new ArrayList<>();
        for (Value v : r.get(n.inputs())) {
            in.add(v.dtype() == half ? r.emit(new Op.Cast(DType.F32), List.of(v)).get(0) : v);
        }
        List<Value> outs = new ArrayList<>();
        for (Value v : r.emit(n.op(), in)) {
            outs.add(v.dtype() == DType.F32 ? r.emit(new Op.Cast(half), List.of(v)).get(0) : v);
        }
        r.replace(n, outs);
    }

    // ---------------------------------------------------------------- AMP

    private static Graph mixed(Graph g, DType half) {
        // Params read only as operands of compute ops are stored in half precision.
        Map<Value, Boolean> computeOnly = new HashMap<>();
        for (Node n : g.nodes()) {
            for (Value v : n.inputs()) {
                if (v.node().op() instanceof Op.Param && v.dtype() == DType.F32) {
                    computeOnly.merge(v, COMPUTE.contains(n.kind()), Boolean::logicalAnd);
                }
            }
        }
        for (Value v : g.outputs()) {
            computeOnly.put(v, false);
        }
        Map<Value, Value> halfOf = new HashMap<>(); // new F32 value -> its cast to half, made once
        return Rewriter.rewrite(g, (n, r) -> {
            if (n.op() instanceof Op.Param p && computeOnly.getOrDefault(n.output(), false)) {
                Value hp = r.emit(new Op.Param(p.name(), p.shape().withDtype(half)), List.of()).get(0);
                r.replace(n.output(), hp);
                halfOf.put(hp, hp);
                return;
            }
            if (!COMPUTE.contains(n.kind()) || n.output().dtype() != DType.F32) {
                r.copy(n);
                return;
            }
            List<Value> in = new ArrayList<>();
            for (Value v : r.get(n.inputs())) {
                if (v.dtype() == DType.F32) {
                    in.add(halfOf.computeIfAbsent(v, x -> r.emit(new Op.Cast(half), List.of(x)).get(0)));
                } else {
                    in.add(v);
                }
            }
            Value y = r.emit(n.op(), in).get(0);
            r.replace(n.output(), r.emit(new Op.Cast(DType.F32), List.of(y)).get(0));
        });
    }

    // ---------------------------------------------------------------- helpers

    /** Casts outputs that the rewrite turned half back to their declared F32. */
    private static Graph restoreOutputs(Graph before, Graph after, DType half) {
        if (after == before) {
            return after;
        }
        List<Value> outs = new ArrayList<>();
        boolean changed = false;
        for (int i = 0; i < after.outputs().size(); i++) {
            Value v = after.outputs().get(i);
            if (v.dtype() == half && before.outputs().get(i).dtype() == DType.F32) {
                v = after.cast(v, DType.F32);
                changed = true;
            }
            outs.add(v);
        }
        if (changed) {
            after.setOutputs(outs);
        }
        return after;
    }

    static Tensor toHalf(Tensor t, DType half) {
        float[] f = t.toFloatArray();
        ByteBuffer b = ByteBuffer.allocate(f.length * 2).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : f) {
            b.putShort(half == DType.F16 ? HalfFloats.toF16(v) : HalfFloats.toBF16(v));
        }
        return Tensor.ofBytes(Shape.of(half, t.shape().dims()), b.array());
    }
}
