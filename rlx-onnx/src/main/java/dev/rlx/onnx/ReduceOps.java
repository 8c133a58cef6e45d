package dev.rlx.onnx;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.ReduceKind;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import java.util.Map;

/** Reductions, arg-reductions, softmax family, cumulative sum and top-k. */
final class ReduceOps {
    private ReduceOps() {}

    static void register(Map<String, Converter> t) {
        reduce(t, "ReduceSum", (c, x, keep, axes) -> c.g().reduce(ReduceKind.SUM, x, keep, axes));
        reduce(t, "ReduceMean", (c, x, keep, axes) -> c.g().reduce(ReduceKind.MEAN, x, keep, axes));
        reduce(t, "ReduceMax", (c, x, keep, axes) -> c.g().reduce(ReduceKind.MAX, x, keep, axes));
        reduce(t, "ReduceMin", (c, x, keep, axes) -> c.g().reduce(ReduceKind.MIN, x, keep, axes));
        reduce(t, "ReduceProd", (c, x, keep, axes) -> c.g().reduce(ReduceKind.PROD, x, keep, axes));
        reduce(t, "ReduceL1", (c, x, keep, axes) -> c.g().reduceSum(c.g().abs(x), keep, axes));
        reduce(t, "ReduceL2", (c, x, keep, axes) -> c.g().sqrt(c.g().reduceSum(c.g().mul(x, x), keep, axes)));
        reduce(t, "ReduceSumSquare", (c, x, keep, axes) -> c.g().reduceSum(c.g().mul(x, x), keep, axes));
        reduce(t, "ReduceLogSum", (c, x, keep, axes) -> c.g().log(c.g().reduceSum(x, keep, axes)));
        reduce(t, "ReduceLogSumExp", (c, x, keep, axes) -> { // max + log(sum(exp(x - max))), no overflow
            Graph g = c.g();
            Value m = g.reduceMax(x, true, axes);
            Value s = g.log(g.reduceSum(g.exp(g.sub(x, m)), keep, axes));
            return g.add(s, keep ? m : g.reduceMax(x, false, axes));
        });
        t.put("ArgMax", c -> argReduce(c, true));
        t.put("ArgMin", c -> argReduce(c, false));
        t.put("Softmax", c -> softmax(c, (g, x, axis) -> g.softmax(x, axis)));
        t.put("LogSoftmax", c -> softmax(c, (g, x, axis) -> g.logSoftmax(x, axis)));
        t.put("Hardmax", c -> softmax(c, (g, x, axis) -> g.cast(oneHotOfArgMax(g, x, axis), x.dtype())));
        t.put("CumSum", c -> {
            Value x = c.in(0);
            int axis = Lower.axis(c, c.scalarLong(1), x.rank());
            c.out(c.g().cumsum(x, axis, c.attrInt("exclusive", 0) != 0, c.attrInt("reverse", 0) != 0));
        });
        t.put("TopK", c -> {
            Value x = c.in(0);
            long k = c.opset() < 10 ? c.attrInt("k", -1) : c.scalarLong(1);
            int axis = Lower.axis(c, c.attrInt("axis", -1), x.rank());
            if (k < 0 || k > x.dim(axis)) {
                throw c.fail("k=%d must be in [0, %d]", k, x.dim(axis));
            }
            var r = c.g().topK(x, (int) k, axis, c.attrInt("largest", 1) != 0);
            c.out(r.get(0), r.get(1));
        });
    }

    /** Builds a reduction of {@code x} over (normalised) {@code axes}. */
    @FunctionalInterface
    interface Reducer {
        Value reduce(NodeCtx c, Value x, boolean keepDims, int[] axes);
    }

    /**
     * Registers a Reduce op: axes from the attribute, or (ReduceSum from opset 13, the others from 18) from
     * input 1; none means all axes, unless {@code noop_with_empty_axes} makes it the identity.
     */
    private static void reduce(Map<String, Converter> t, String name, Reducer r) {
        int axesInputFrom = name.equals("ReduceSum") ? 13 : 18;
        t.put(name, c -> {
            Value x = c.in(0);
            long[] axes = c.opset() >= axesInputFrom ? (c.has(1) ? c.longs(1) : null) : c.attrInts("axes", null);
            boolean keep = c.attrInt("keepdims", 1) != 0;
            if ((axes == null || axes.length == 0) && c.attrInt("noop_with_empty_axes", 0) != 0) {
                c.out(x);
                return;
            }
            int[] a = axes == null || axes.length == 0 ? all(x.rank()) : Lower.axes(c, axes, x.rank());
            c.out(r.reduce(c, x, keep, a));
        });
    }

    private static int[] all(int rank) {
        int[] a = new int[rank];
        for (int i = 0; i < rank; i++) {
            a[i] = i;
        }
        return a;
    }

    private static void argReduce(NodeCtx c, boolean max) {
        Graph g = c.g();
        Value x = c.in(0);
        int axis = Lower.axis(c, c.attrInt("axis", 0), x.rank());
        boolean keep = c.attrInt("keepdims", 1) != 0;
        if (c.attrInt("select_last_index", 0) == 0) {
            c.out(max ? g.argMax(x, axis, keep) : g.argMin(x, axis, keep));
            return;
        }
        // The last extreme is the first in the reversed axis: index n-1-i.
        int n = x.dim(axis);
        Value rev = g.slice(x, axis, n - 1, n, -1);
        Value i = max ? g.argMax(rev, axis, keep) : g.argMin(rev, axis, keep);
        c.out(g.sub(Lower.scalar(g, DType.I64, n - 1), i));
    }

    /** Builds a softmax-like op along one axis. */
    @FunctionalInterface
    interface AlongAxis {
        Value apply(Graph g, Value x, int axis);
    }

    /** Before opset 13 these ops work on x flattened to 2-D at {@code axis} (default 1); after, along it (default -1). */
    private static void softmax(NodeCtx c, AlongAxis op) {
        Graph g = c.g();
        Value x = c.in(0);
        if (c.opset() >= 13) {
            c.out(op.apply(g, x, Lower.axis(c, c.attrInt("axis", -1), x.rank())));
            return;
        }
        int axis = x.rank() == 0 ? 0 : (int) (c.attrInt("axis", 1) < 0 ? c.attrInt("axis", 1) + x.rank() : c.attrInt("axis", 1));
        if (axis < 0 || axis > x.rank()) {
            throw c.fail("axis %d is out of range for %s", c.attrInt("axis", 1), x.shape());
        }
        int outer = Tensors.toInt(x.shape().elementCount(0, axis), "rows");
        int inner = Tensors.toInt(x.shape().elementCount(axis, x.rank()), "columns");
        Value flat = Lower.reshape(g, x, outer, inner);
        c.out(Lower.reshape(g, op.apply(g, flat, 1), x.shape().dims()));
    }

    /** A BOOL tensor shaped like {@code x}, true at the first maximum along {@code axis}. */
    static Value oneHotOfArgMax(Graph g, Value x, int axis) {
        Value idx = g.argMax(x, axis, true);
        return g.eq(idx, iota(g, x.rank(), axis, x.dim(axis)));
    }

    /** {@code [0, n)} as I64 along {@code axis} of a rank-{@code rank} tensor with all other dims 1. */
    static Value iota(Graph g, int rank, int axis, int n) {
        long[] v = new long[n];
        for (int i = 0; i < n; i++) {
            v[i] = i;
        }
        int[] d = new int[rank];
        java.util.Arrays.fill(d, 1);
        d[axis] = n;
        return g.constant(Tensor.of(v, d));
    }
}
