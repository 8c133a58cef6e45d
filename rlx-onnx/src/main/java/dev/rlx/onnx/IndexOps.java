package dev.rlx.onnx;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import java.util.Arrays;
import java.util.Map;

/**
 * Gather and scatter ops. The element-wise and N-d forms become the IR's Gather and ScatterAdd over a
 * flattened view: each index is turned into a flat offset with the data's strides.
 */
final class IndexOps {
    private IndexOps() {}

    static void register(Map<String, Converter> t) {
        t.put("Gather", c -> {
            Value x = c.in(0);
            c.out(c.g().gather(x, c.in(1), Lower.axis(c, c.attrInt("axis", 0), x.rank())));
        });
        t.put("GatherElements", c -> {
            Graph g = c.g();
            Value data = c.in(0);
            Value idx = c.in(1);
            c.out(gatherElements(c, data, idx, Lower.axis(c, c.attrInt("axis", 0), data.rank())));
        });
        t.put("ScatterElements", IndexOps::scatterElements);
        t.put("Scatter", IndexOps::scatterElements);
        t.put("GatherND", IndexOps::gatherNd);
        t.put("ScatterND", IndexOps::scatterNd);
        t.put("OneHot", IndexOps::oneHot);
        t.put("ReverseSequence", IndexOps::reverseSequence);
    }

    /** Source time index {@code t < len[b] ? len[b] - 1 - t : t}, gathered element-wise along time. */
    private static void reverseSequence(NodeCtx c) {
        Graph g = c.g();
        Value x = c.in(0);
        int time = Lower.axis(c, c.attrInt("time_axis", 0), x.rank());
        int batch = Lower.axis(c, c.attrInt("batch_axis", 1), x.rank());
        if (time == batch) {
            throw c.fail("time_axis and batch_axis are both %d", time);
        }
        int[] bd = new int[x.rank()];
        Arrays.fill(bd, 1);
        bd[batch] = x.dim(batch);
        Value lens = Lower.reshape(g, Lower.cast(g, c.in(1), DType.I64), bd);
        Value t = ReduceOps.iota(g, x.rank(), time, x.dim(time));
        Value back = g.sub(g.sub(lens, Lower.scalar(g, DType.I64, 1)), t);
        Value src = g.expand(g.where(g.lt(t, lens), back, t), x.shape().dims());
        c.out(gatherElements(c, x, src, time));
    }

    /** ONNX GatherElements: {@code out[p] = data[p with coordinate axis replaced by idx[p]]}. */
    static Value gatherElements(NodeCtx c, Value data, Value idx, int axis) {
        Graph g = c.g();
        return g.gather(flat(g, data), elementOffsets(c, data, idx, axis), 0);
    }

    private static Value flat(Graph g, Value x) {
        return Lower.reshape(g, x, Tensors.toInt(x.shape().elementCount(), "element count"));
    }

    /** {@code idx} (I64) with negative entries wrapped by {@code n}. */
    static Value wrap(Graph g, Value idx, long n) {
        Value i = Lower.cast(g, idx, DType.I64);
        Value zero = Lower.scalar(g, DType.I64, 0);
        return g.where(g.lt(i, zero), g.add(i, Lower.scalar(g, DType.I64, n)), i);
    }

    /**
     * Flat offsets into {@code data} for ScatterElements/GatherElements: position p of {@code idx} addresses
     * data at p with coordinate {@code axis} replaced by {@code idx[p]}.
     */
    private static Value elementOffsets(NodeCtx c, Value data, Value idx, int axis) {
        Graph g = c.g();
        if (idx.rank() != data.rank()) {
            throw c.fail("indices %s must have the rank of data %s", idx.shape(), data.shape());
        }
        long[] strides = data.shape().strides();
        Value off = g.mul(wrap(g, idx, data.dim(axis)), Lower.scalar(g, DType.I64, strides[axis]));
        for (int d = 0; d < data.rank(); d++) {
            if (d == axis) {
                continue;
            }
            if (idx.dim(d) > data.dim(d)) {
                throw c.fail("indices %s exceed data %s in dim %d", idx.shape(), data.shape(), d);
            }
            off = g.add(off, g.mul(ReduceOps.iota(g, idx.rank(), d, idx.dim(d)), Lower.scalar(g, DType.I64, strides[d])));
        }
        return off;
    }

    /** ScatterElements: reduction add is the IR's ScatterAdd; none replaces the addressed elements. */
    private static void scatterElements(NodeCtx c) {
        Graph g = c.g();
        Value data = c.in(0);
        Value idx = c.in(1);
        Value upd = c.in(2);
        int axis = Lower.axis(c, c.attrInt("axis", 0), data.rank());
        String red = c.attrString("reduction", "none");
        switch (red) {
            case "add" -> c.out(g.scatterAdd(data, idx, upd, axis));
            case "none" -> c.out(replace(g, data, idx, upd, axis));
            default -> throw c.unsupported("ScatterElements(reduction=" + red + ")", "reduction '%s' is not supported", red);
        }
    }

    /** {@code data} with the elements {@code scatter(idx)} addresses replaced by {@code upd}. */
    private static Value replace(Graph g, Value data, Value idx, Value upd, int axis) {
        Value zeros = g.expand(Lower.scalar(g, data.dtype(), 0), data.shape().dims());
        Value placed = g.scatterAdd(zeros, idx, upd, axis);
        Value count = g.scatterAdd(g.expand(Lower.scalar(g, DType.I32, 0), data.shape().dims()), idx,
                g.expand(Lower.scalar(g, DType.I32, 1), idx.shape().dims()), axis);
        return g.where(g.gt(count, Lower.scalar(g, DType.I32, 0)), placed, data);
    }

    /**
     * Flat row offsets for the N-d ops: {@code idx [..., k]} addresses rows of data seen as
     * {@code [batch * prod(dims[b:b+k]), rest]}; returns offsets shaped {@code idx[:-1]}.
     */
    private static Value rowOffsets(NodeCtx c, Value data, Value idx, int batchDims) {
        Graph g = c.g();
        int k = idx.dim(idx.rank() - 1);
        if (batchDims + k > data.rank()) {
            throw c.fail("indices %s address %d dims of data %s past %d batch dims", idx.shape(), k, data.shape(), batchDims);
        }
        int[] lead = Arrays.copyOf(idx.shape().dims(), idx.rank() - 1);
        Value off = null;
        long stride = 1;
        for (int j = k - 1; j >= 0; j--) {
            int d = data.dim(batchDims + j);
            Value col = Lower.reshape(g, g.narrow(idx, idx.rank() - 1, j, 1), lead);
            Value term = g.mul(wrap(g, col, d), Lower.scalar(g, DType.I64, stride));
            off = off == null ? term : g.add(off, term);
            stride *= d;
        }
        if (off == null) {
            off = g.expand(Lower.scalar(g, DType.I64, 0), lead);
        }
        if (batchDims > 0) { // batch b's rows start at b * stride
            long batches = data.shape().elementCount(0, batchDims);
            int[] bd = new int[lead.length];
            Arrays.fill(bd, 1);
            for (int i = 0; i < batchDims; i++) {
                bd[i] = lead[i];
            }
            long[] base = new long[Math.toIntExact(batches)];
            for (int i = 0; i < base.length; i++) {
                base[i] = i * stride;
            }
            off = g.add(off, g.constant(Tensor.of(base, bd)));
        }
        return off;
    }

    private static void gatherNd(NodeCtx c) {
        Graph g = c.g();
        Value data = c.in(0);
        Value idx = c.in(1);
        int b = (int) c.attrInt("batch_dims", 0);
        if (b < 0 || b >= Math.min(data.rank(), idx.rank())) {
            throw c.fail("batch_dims %d is out of range", b);
        }
        int k = idx.dim(idx.rank() - 1);
        Value off = rowOffsets(c, data, idx, b);
        int rows = Tensors.toInt(data.shape().elementCount(0, b + k), "rows");
        int rest = Tensors.toInt(data.shape().elementCount(b + k, data.rank()), "row size");
        Value got = g.gather(Lower.reshape(g, data, rows, rest), off, 0);
        int[] lead = Arrays.copyOf(idx.shape().dims(), idx.rank() - 1);
        int[] out = Arrays.copyOf(lead, lead.length + data.rank() - b - k);
        System.arraycopy(data.shape().dims(), b + k, out, lead.length, data.rank() - b - k);
        c.out(Lower.reshape(g, got, out));
    }

    private static void scatterNd(NodeCtx c) {
        Graph g = c.g();
        Value data = c.in(0);
        Value idx = c.in(1);
        Value upd = c.in(2);
        int k = idx.dim(idx.rank() - 1);
        Value off = rowOffsets(c, data, idx, 0);
        int rows = Tensors.toInt(data.shape().elementCount(0, k), "rows");
        int rest = Tensors.toInt(data.shape().elementCount(k, data.rank()), "row size");
        int count = Tensors.toInt(off.shape().elementCount(), "updates");
        if (upd.shape().elementCount() != (long) count * rest) {
            throw c.fail("updates %s must be indices[:-1] + data[k:] for indices %s and data %s", upd.shape(),
                    idx.shape(), data.shape());
        }
        Value rowsIdx = g.expand(Lower.reshape(g, off, count, 1), count, rest);
        Value d2 = Lower.reshape(g, data, rows, rest);
        Value u2 = Lower.reshape(g, upd, count, rest);
        String red = c.attrString("reduction", "none");
        Value out = switch (red) {
            case "add" -> g.scatterAdd(d2, rowsIdx, u2, 0);
            case "none" -> replace(g, d2, rowsIdx, u2, 0);
            default -> throw c.unsupported("ScatterND(reduction=" + red + ")", "reduction '%s' is not supported", red);
        };
        c.out(Lower.reshape(g, out, data.shape().dims()));
    }

    private static void oneHot(NodeCtx c) {
        Graph g = c.g();
        Value idx = c.in(0);
        long depth = (long) c.scalarDouble(1);
        Value values = c.in(2);
        if (depth <= 0 || depth > GeneratorOps.MAX_ELEMENTS) {
            throw c.fail("depth %d is out of range", depth);
        }
        if (values.shape().elementCount() != 2) {
            throw c.fail("values must hold [off, on] but is %s", values.shape());
        }
        int r = idx.rank() + 1;
        int axis = Lower.axis(c, c.attrInt("axis", -1), r);
        Value i = Lower.unsqueeze(g, wrap(g, Lower.cast(g, idx, DType.I64), depth), axis);
        Value hot = g.eq(i, ReduceOps.iota(g, r, axis, (int) depth));
        Value v = Lower.reshape(g, values, 2);
        Value off = Lower.reshape(g, g.narrow(v, 0, 0, 1));
        Value on = Lower.reshape(g, g.narrow(v, 0, 1, 1));
        Shape s = hot.shape();
        c.out(g.where(hot, g.expand(on, s.dims()), off));
    }
}
