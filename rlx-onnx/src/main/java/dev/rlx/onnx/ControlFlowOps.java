package dev.rlx.onnx;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * If, Loop and Scan onto the IR's control flow. ONNX subgraphs may read any enclosing value by name; IR
 * subgraphs take data only through inputs, so such values become extra inputs (If) or carries passed
 * through unchanged (While, Scan). A Loop whose trip count and condition are known at import time is
 * unrolled instead, which also serves loops with scan outputs and bodies that index by the iteration.
 */
final class ControlFlowOps {
    private ControlFlowOps() {}

    /** Most iterations a Loop is unrolled to. */
    static final int MAX_UNROLL = 1024;

    static void register(Map<String, Converter> t) {
        t.put("If", ControlFlowOps::ifElse);
        t.put("Loop", ControlFlowOps::loop);
        t.put("Scan", ControlFlowOps::scan);
    }

    /**
     * Most elements of an input given at import that an If's condition may be folded from (a sample rate, a mode
     * flag); such inputs become frozen. Larger inputs are data, and their If stays a run-time choice.
     */
    static final int MAX_IF_FOLD_ELEMENTS = 16;

    private static void ifElse(NodeCtx c) {
        Importer imp = c.importer();
        OnnxProto.Graph thenG = c.attrGraph("then_branch");
        OnnxProto.Graph elseG = c.attrGraph("else_branch");
        Value cond = c.in(0);
        Tensor known = imp.tryStatic(cond, false);
        if (known == null) { // decided by small inputs given at import: fold like a shape input, the other branch unread
            known = imp.tryStaticFrom(cond, MAX_IF_FOLD_ELEMENTS);
        }
        if (known != null) { // a branch known at import time is inlined
            OnnxProto.Graph taken = one(c, known, "the condition") != 0 ? thenG : elseG;
            c.out(imp.lowerBody(taken, new Scope(c.scope, c.g()), List.of(), "branch", c).toArray(Value[]::new));
            return;
        }
        LinkedHashSet<String> caps = new LinkedHashSet<>(imp.captures(thenG, c.scope, c));
        caps.addAll(imp.captures(elseG, c.scope, c));
        List<String> names = List.copyOf(caps);
        Graph tg = imp.subgraph(thenG, c.scope, List.of(), names, "then", c);
        Graph eg = imp.subgraph(elseG, c.scope, List.of(), names, "else", c);
        Value[] captured = names.stream().map(n -> imp.value(c.scope, n, c)).toArray(Value[]::new);
        c.out(c.g().ifElse(cond, tg, eg, captured).toArray(Value[]::new));
    }

    private static void loop(NodeCtx c) {
        Importer imp = c.importer();
        Graph g = c.g();
        OnnxProto.Graph body = c.attrGraph("body");
        Tensor trip = c.has(0) ? imp.tryStatic(c.in(0), true) : null;
        Tensor cond = c.has(1) ? imp.tryStatic(c.in(1), true) : null;
        int nv = c.inputCount() - 2;
        int scans = body.outputs().size() - 1 - nv;
        if (nv < 0 || scans < 0) {
            throw c.fail("body returns %d values for %d loop-carried inputs", body.outputs().size(), nv);
        }
        List<Value> v = new ArrayList<>();
        for (int i = 0; i < nv; i++) {
            v.add(c.in(i + 2));
        }
        long trips = trip == null ? -1 : (long) one(c, trip, "the trip count");
        boolean running = cond == null || one(c, cond, "the condition") != 0;
        if (trip != null && (cond != null || !c.has(1)) && imp.mayUnroll(trips)) {
            imp.unrolling(trips, () -> unroll(c, body, trips, running, v, scans));
            return;
        }
        if (scans > 0) {
            throw c.unsupported("Loop(scan outputs)", "scan outputs need a trip count and condition known at import time");
        }
        // IR While over carries (iteration, condition, values..., captured outer values...).
        List<String> caps = imp.captures(body, c.scope, c);
        List<Value> carries = new ArrayList<>();
        carries.add(g.scalar(DType.I64, 0));
        carries.add(c.has(1) ? Lower.reshape(g, c.in(1)) : g.scalar(DType.BOOL, 1));
        carries.addAll(v);
        caps.forEach(n -> carries.add(imp.value(c.scope, n, c)));
        Value limit = c.has(0) ? Lower.reshape(g, Lower.cast(g, c.in(0), DType.I64)) : null;
        if (limit != null) {
            carries.add(limit);
        }
        List<Shape> shapes = carries.stream().map(Value::shape).toList();
        Graph cg = new Graph("loop_cond");
        List<Value> ci = new ArrayList<>();
        for (int i = 0; i < shapes.size(); i++) {
            ci.add(cg.input("c" + i, shapes.get(i)));
        }
        Value go = ci.get(1);
        if (limit != null) {
            go = cg.and(go, cg.lt(ci.get(0), ci.get(ci.size() - 1)));
        }
        cg.setOutputs(go);
        Graph bg = new Graph("loop_body");
        List<Value> bi = new ArrayList<>();
        for (int i = 0; i < shapes.size(); i++) {
            bi.add(bg.input("c" + i, shapes.get(i)));
        }
        Scope s = new Scope(c.scope, bg);
        for (int i = 0; i < caps.size(); i++) {
            s.define(caps.get(i), bi.get(2 + nv + i));
        }
        List<Value> formals = new ArrayList<>(bi.subList(0, 2 + nv));
        List<Value> outs = imp.lowerBody(body, s, formals, "loop_body", c);
        List<Value> next = new ArrayList<>();
        next.add(bg.add(bi.get(0), bg.scalar(DType.I64, 1)));
        next.add(Lower.reshape(bg, outs.get(0)));
        next.addAll(outs.subList(1, 1 + nv));
        next.addAll(bi.subList(2 + nv, bi.size()));
        for (int i = 0; i < next.size(); i++) {
            if (!next.get(i).shape().equals(shapes.get(i))) {
                throw c.unsupported("Loop(changing shapes)", "loop-carried value %d changes from %s to %s between iterations",
                        i, shapes.get(i), next.get(i).shape());
            }
        }
        bg.setOutputs(next);
        List<Value> res = g.whileLoop(cg, bg, -1, carries.toArray(Value[]::new));
        c.out(res.subList(2, 2 + nv).toArray(Value[]::new));
    }

    /** Inlines {@code trips} iterations, each with its iteration number known; stops where the condition is false. */
    private static void unroll(NodeCtx c, OnnxProto.Graph body, long trips, boolean go, List<Value> v, int scans) {
        Importer imp = c.importer();
        Graph g = c.g();
        List<List<Value>> scanned = new ArrayList<>();
        for (int k = 0; k < scans; k++) {
            scanned.add(new ArrayList<>());
        }
        for (long i = 0; i < trips && go; i++) {
            List<Object> formals = new ArrayList<>();
            formals.add(Tensor.scalar(DType.I64, i));
            formals.add(Tensor.scalar(DType.BOOL, 1));
            formals.addAll(v);
            List<Value> outs = imp.lowerBody(body, new Scope(c.scope, g), formals, "loop_body", c);
            Tensor next = imp.tryStatic(outs.get(0), true);
            if (next == null) {
                throw c.unsupported("Loop(dynamic condition)", "the condition of iteration %d is not known at import time", i);
            }
            go = one(c, next, "the condition of iteration " + i) != 0;
            v = new ArrayList<>(outs.subList(1, 1 + v.size()));
            for (int k = 0; k < scans; k++) {
                scanned.get(k).add(Lower.unsqueeze(g, outs.get(1 + v.size() + k), 0));
            }
        }
        List<Value> res = new ArrayList<>(v);
        for (List<Value> s : scanned) {
            if (s.isEmpty()) {
                throw c.unsupported("Loop(empty scan output)", "a loop that runs no iteration has empty scan outputs");
            }
            res.add(s.size() == 1 ? s.get(0) : g.concat(0, s.toArray(Value[]::new)));
        }
        c.out(res.toArray(Value[]::new));
    }

    private static void scan(NodeCtx c) {
        Graph g = c.g();
        OnnxProto.Graph body = c.attrGraph("body");
        int m = (int) c.attrInt("num_scan_inputs", -1);
        if (c.opset() < 9) { // opset 8: a batch dim in front, sequence_lens first
            if (c.has(0)) {
                throw c.unsupported("Scan(sequence_lens)", "opset-8 sequence_lens are not supported");
            }
            List<Value> in = new ArrayList<>();
            for (int i = 1; i < c.inputCount(); i++) {
                in.add(c.in(i));
            }
            int batch = in.get(0).dim(0);
            List<List<Value>> per = new ArrayList<>();
            for (int b = 0; b < batch; b++) {
                List<Value> slice = new ArrayList<>();
                for (Value x : in) {
                    slice.add(Lower.reshape(g, g.narrow(x, 0, b, 1), Lower.without(x.shape(), 0)));
                }
                per.add(scanOnce(c, body, slice, m, new long[m], new long[m], null, null));
            }
            Value[] outs = new Value[per.get(0).size()];
            for (int k = 0; k < outs.length; k++) {
                List<Value> parts = new ArrayList<>();
                for (List<Value> p : per) {
                    parts.add(Lower.unsqueeze(g, p.get(k), 0));
                }
                outs[k] = parts.size() == 1 ? parts.get(0) : g.concat(0, parts.toArray(Value[]::new));
            }
            c.out(outs);
            return;
        }
        c.out(scanOnce(c, body, c.ins(), m, c.attrInts("scan_input_axes", null), c.attrInts("scan_input_directions", null),
                c.attrInts("scan_output_axes", null), c.attrInts("scan_output_directions", null)).toArray(Value[]::new));
    }

    /** One ONNX Scan (opset 9 form) over {@code in} = states then scan inputs. */
    private static List<Value> scanOnce(NodeCtx c, OnnxProto.Graph body, List<Value> in, int m, long[] inAxes,
                                        long[] inDirs, long[] outAxes, long[] outDirs) {
        Importer imp = c.importer();
        Graph g = c.g();
        int n = in.size() - m;
        if (m <= 0 || n < 0) {
            throw c.fail("num_scan_inputs %d does not fit %d inputs", m, in.size());
        }
        List<Value> xs = new ArrayList<>();
        int length = -1;
        for (int i = 0; i < m; i++) {
            Value x = in.get(n + i);
            int axis = Lower.axis(c, inAxes == null ? 0 : inAxes[i], x.rank());
            x = Lower.transpose(g, x, moveToFront(x.rank(), axis));
            if (inDirs != null && inDirs[i] != 0) {
                x = g.slice(x, 0, x.dim(0) - 1, x.dim(0), -1);
            }
            if (length >= 0 && x.dim(0) != length) {
                throw c.fail("scan inputs have different lengths %d and %d", length, x.dim(0));
            }
            length = x.dim(0);
            xs.add(x);
        }
        List<String> caps = imp.captures(body, c.scope, c);
        List<Value> carries = new ArrayList<>(in.subList(0, n));
        caps.forEach(name -> carries.add(imp.value(c.scope, name, c)));
        Graph bg = new Graph("scan_body");
        List<Value> formals = new ArrayList<>();
        List<Value> carryIn = new ArrayList<>();
        for (int i = 0; i < carries.size(); i++) {
            carryIn.add(bg.input("c" + i, carries.get(i).shape()));
        }
        formals.addAll(carryIn.subList(0, n));
        for (int i = 0; i < m; i++) {
            formals.add(bg.input("x" + i, Shape.of(xs.get(i).dtype(), Lower.without(xs.get(i).shape(), 0))));
        }
        Scope s = new Scope(c.scope, bg);
        for (int i = 0; i < caps.size(); i++) {
            s.define(caps.get(i), carryIn.get(n + i));
        }
        List<Value> outs = imp.lowerBody(body, s, formals, "scan_body", c);
        List<Value> bodyOut = new ArrayList<>(outs.subList(0, n));
        bodyOut.addAll(carryIn.subList(n, carryIn.size()));
        bodyOut.addAll(outs.subList(n, outs.size()));
        bg.setOutputs(bodyOut);
        List<Value> operands = new ArrayList<>(carries);
        operands.addAll(xs);
        List<Value> res = g.scan(bg, length, carries.size(), false, operands.toArray(Value[]::new));
        List<Value> result = new ArrayList<>(res.subList(0, n));
        List<Value> ys = res.subList(carries.size(), res.size());
        for (int k = 0; k < ys.size(); k++) {
            Value y = ys.get(k);
            if (outDirs != null && outDirs[k] != 0) {
                y = g.slice(y, 0, y.dim(0) - 1, y.dim(0), -1);
            }
            int axis = outAxes == null ? 0 : Lower.axis(c, outAxes[k], y.rank());
            result.add(Lower.transpose(g, y, Lower.inverse(moveToFront(y.rank(), axis))));
        }
        return result;
    }

    /** The one value of {@code t}, which must have exactly one element. */
    private static double one(NodeCtx c, Tensor t, String what) {
        if (t.shape().elementCount() != 1) {
            throw c.fail("%s must hold one value but is %s", what, t.shape());
        }
        return t.getDouble(0);
    }

    /** The permutation bringing {@code axis} to the front, the others in order. */
    private static int[] moveToFront(int rank, int axis) {
        int[] p = new int[rank];
        p[0] = axis;
        for (int i = 0, k = 1; i < rank; i++) {
            if (i != axis) {
                p[k++] = i;
            }
        }
        return p;
    }
}
