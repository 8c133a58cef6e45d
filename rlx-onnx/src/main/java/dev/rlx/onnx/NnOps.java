package dev.rlx.onnx;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Op;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** Linear algebra, convolution, pooling and normalisation ops. */
final class NnOps {
    private NnOps() {}

    static void register(Map<String, Converter> t) {
        t.put("MatMul", c -> c.out(c.g().matmul(c.in(0), c.in(1))));
        t.put("Gemm", NnOps::gemm);
        t.put("Conv", NnOps::conv);
        t.put("ConvTranspose", NnOps::convTranspose);
        t.put("MaxPool", c -> pool(c, Op.Pool.Kind.MAX));
        t.put("AveragePool", c -> pool(c, Op.Pool.Kind.AVG));
        t.put("GlobalAveragePool", c -> c.out(c.g().reduceMean(c.in(0), true, spatial(c.in(0)))));
        t.put("GlobalMaxPool", c -> c.out(c.g().reduceMax(c.in(0), true, spatial(c.in(0)))));
        t.put("BatchNormalization", NnOps::batchNorm);
        t.put("InstanceNormalization", c -> {
            Value x = c.in(0);
            c.out(c.g().groupNorm(x, c.in(1), c.in(2), x.dim(1), c.attrFloat("epsilon", 1e-5f)));
        });
        t.put("LayerNormalization", NnOps::layerNorm);
        t.put("LRN", NnOps::lrn);
        t.put("MeanVarianceNormalization", c -> {
            Graph g = c.g();
            Value x = c.in(0);
            int[] axes = Lower.axes(c, c.attrInts("axes", new long[] {0, 2, 3}), x.rank());
            Value d = g.sub(x, g.reduceMean(x, true, axes));
            Value var = g.reduceMean(g.mul(d, d), true, axes);
            c.out(g.div(d, g.add(g.sqrt(var), Lower.scalar(g, x.dtype(), 1e-9))));
        });
    }

    private static int[] spatial(Value x) {
        int[] a = new int[Math.max(0, x.rank() - 2)];
        for (int i = 0; i < a.length; i++) {
            a[i] = i + 2;
        }
        return a;
    }

    private static int[] spatialDims(Value x) {
        return Arrays.copyOfRange(x.shape().dims(), 2, x.rank());
    }

    private static void gemm(NodeCtx c) {
        Graph g = c.g();
        Value a = c.in(0);
        Value b = c.in(1);
        if (a.rank() != 2 || b.rank() != 2) {
            throw c.fail("A %s and B %s must be matrices", a.shape(), b.shape());
        }
        if (c.attrInt("transA", 0) != 0) {
            a = g.transpose(a, 1, 0);
        }
        if (c.attrInt("transB", 0) != 0) {
            b = g.transpose(b, 1, 0);
        }
        Value y = g.matmul(a, b);
        double alpha = c.attrFloat("alpha", 1f);
        if (alpha != 1) {
            y = g.mul(y, Lower.scalar(g, y.dtype(), alpha));
        }
        if (c.has(2)) {
            Value bias = c.in(2);
            double beta = c.attrFloat("beta", 1f);
            if (beta != 1) {
                bias = g.mul(bias, Lower.scalar(g, bias.dtype(), beta));
            }
            y = g.add(y, bias);
        }
        c.out(y);
    }

    private static void conv(NodeCtx c) {
        Value x = c.in(0);
        Value w = c.in(1);
        if (x.rank() < 3 || w.rank() != x.rank()) {
            throw c.fail("x %s and w %s must be [N, C, *spatial] and [M, C/group, *kernel]", x.shape(), w.shape());
        }
        ConvGeometry geo = ConvGeometry.of(c, spatialDims(x), spatialDims(w));
        Op.Conv spec = new Op.Conv(Lower.list(geo.strides()), Lower.list(geo.pads()),
                Lower.list(geo.dilations()), (int) c.attrInt("group", 1));
        c.out(c.g().conv(x, w, c.has(2) ? c.in(2) : null, spec));
    }

    /**
     * ConvTranspose. The output may be asked for by {@code output_shape}, which can mean pads the IR op
     * does not take (negative, or output padding past the stride): then the full result is computed and
     * windowed, cells outside it being zero, and the bias added after.
     */
    private static void convTranspose(NodeCtx c) {
        Graph g = c.g();
        Value x = c.in(0);
        Value w = c.in(1);
        if (x.rank() < 3 || w.rank() != x.rank()) {
            throw c.fail("x %s and w %s must be [N, C, *spatial] and [C, M/group, *kernel]", x.shape(), w.shape());
        }
        int[] in = spatialDims(x);
        int[] k = spatialDims(w);
        int sr = in.length;
        String auto = c.attrString("auto_pad", "NOTSET");
        // ConvGeometry's SAME rule is the convolution's; ConvTranspose pads come from the output size below.
        int[] s = ConvGeometry.ints(c, "strides", sr, 1);
        int[] d = ConvGeometry.ints(c, "dilations", sr, 1);
        int[] pads = ConvGeometry.ints(c, "pads", 2 * sr, 0);
        int[] outPad = ConvGeometry.ints(c, "output_padding", sr, 0);
        long[] outShape = c.attrInts("output_shape", null);
        if (outShape != null && outShape.length < sr) {
            throw c.fail("output_shape %s has fewer than the %d spatial dims", Arrays.toString(outShape), sr);
        }
        int[] head = new int[sr];
        int[] tail = new int[sr];
        int[] size = new int[sr];
        for (int i = 0; i < sr; i++) {
            long full = (long) s[i] * (in[i] - 1) + outPad[i] + (long) (k[i] - 1) * d[i] + 1;
            if (outShape != null || auto.startsWith("SAME")) {
                long target = outShape != null ? outShape[outShape.length - sr + i] : (long) in[i] * s[i];
                long total = full - target;
                boolean upper = auto.equals("SAME_UPPER");
                long small = Math.floorDiv(total, 2);
                if (target < 0 || Math.abs(total) > Integer.MAX_VALUE / 2) {
                    throw c.fail("output size %d of spatial dim %d is out of range (the full output is %d)", target, i, full);
                }
                head[i] = (int) (upper ? small : total - small);
                tail[i] = (int) (total - head[i]);
            } else if (auto.equals("VALID") || auto.equals("NOTSET")) {
                head[i] = pads[i];
                tail[i] = pads[i + sr];
            } else {
                throw c.fail("auto_pad '%s' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID", auto);
            }
            long sz = full - head[i] - tail[i];
            if (sz < 0 || sz > Integer.MAX_VALUE) {
                throw c.fail("output size %d in spatial dim %d is out of range", sz, i);
            }
            size[i] = (int) sz;
            // The CPU kernel keeps an (output x kernel) tap map per spatial dim: bound it here, before compile.
            long taps = Math.multiplyExact(Math.max(sz, full), (long) k[i]);
            c.importer().limits().check(dev.rlx.ir.limits.Limits.Kind.TENSOR_BYTES, c.describe()
                    + ": the tap map of spatial dim " + i + " (" + Math.max(sz, full) + " outputs x " + k[i]
                    + " taps)", Math.multiplyExact(taps, 4L));
        }
        int group = (int) c.attrInt("group", 1);
        Value bias = c.has(2) ? c.in(2) : null;
        boolean direct = true;
        for (int i = 0; i < sr; i++) {
            direct &= head[i] >= 0 && tail[i] >= 0 && (outPad[i] < s[i] || outPad[i] < d[i]);
        }
        if (direct) {
            var spec = new Op.ConvTranspose(Lower.list(s), Lower.list(concat(head, tail)), Lower.list(d),
                    Lower.list(outPad), group);
            c.out(g.convTranspose(x, w, bias, spec));
            return;
        }
        int[] zero = new int[sr];
        var spec = new Op.ConvTranspose(Lower.list(s), Lower.list(new int[2 * sr]), Lower.list(d),
                Lower.list(zero), group);
        Value y = g.convTranspose(x, w, null, spec);
        for (int i = 0; i < sr; i++) {
            y = window(g, y, i + 2, head[i], size[i]);
        }
        if (bias != null) {
            int[] bd = new int[x.rank() - 1];
            Arrays.fill(bd, 1);
            bd[0] = bias.dim(0);
            y = g.add(y, Lower.reshape(g, bias, bd));
        }
        c.out(y);
    }

    /** Elements {@code [start, start + len)} of {@code y} along {@code axis}; cells outside it are zero. */
    private static Value window(Graph g, Value y, int axis, int start, int len) {
        int n = y.dim(axis);
        int from = Math.max(0, start);
        int to = Math.min(n, start + len);
        Value mid = to > from ? g.narrow(y, axis, from, to - from) : null;
        int before = Math.max(0, -start);
        int after = len - before - Math.max(0, to - from);
        List<Value> parts = new java.util.ArrayList<>();
        if (before > 0) {
            parts.add(g.expand(Lower.scalar(g, y.dtype(), 0), y.shape().withDim(axis, before).dims()));
        }
        if (mid != null) {
            parts.add(mid);
        }
        if (after > 0) {
            parts.add(g.expand(Lower.scalar(g, y.dtype(), 0), y.shape().withDim(axis, after).dims()));
        }
        return parts.size() == 1 ? parts.get(0) : g.concat(axis, parts.toArray(Value[]::new));
    }

    private static int[] concat(int[] a, int[] b) {
        int[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }


    private static void pool(NodeCtx c, Op.Pool.Kind kind) {
        Graph g = c.g();
        Value x = c.in(0);
        if (x.rank() < 3) {
            throw c.fail("x %s must be [N, C, *spatial]", x.shape());
        }
        if (c.wantsOutput(1)) {
            throw c.unsupported("MaxPool(Indices)", "the Indices output of MaxPool is not supported");
        }
        ConvGeometry geo = ConvGeometry.of(c, spatialDims(x), null);
        int sr = x.rank() - 2;
        var spec = new Op.Pool(kind, Lower.list(geo.kernel()), Lower.list(geo.strides()), Lower.list(geo.pads()),
                Lower.list(geo.dilations()), c.attrInt("ceil_mode", 0) != 0, c.attrInt("count_include_pad", 0) != 0);
        if (sr != spec.kernel().size()) {
            throw c.fail("kernel_shape must have %d entries", sr);
        }
        DType t = x.dtype();
        Value in = t.isFloat() ? x : g.cast(x, DType.F32); // integer max pools are exact in f32 for 8/16-bit
        Value y = g.pool(in, spec);
        c.out(Lower.cast(g, y, t));
    }

    private static void batchNorm(NodeCtx c) {
        Graph g = c.g();
        Value x = c.in(0);
        boolean training = (c.opset() >= 14 && c.attrInt("training_mode", 0) != 0)
                || (c.opset() < 7 && c.hasAttr("is_test") && c.attrInt("is_test", 0) == 0);
        if (training) {
            throw c.unsupported("BatchNormalization(training_mode)", "training-mode batch norm is not supported");
        }
        if (x.rank() < 2) {
            throw c.fail("x %s must be [N, C, ...]", x.shape());
        }
        int[] cd = new int[x.rank() - 1];
        Arrays.fill(cd, 1);
        cd[0] = x.dim(1);
        Value folded = foldedBatchNorm(c, x, cd);
        if (folded != null) {
            c.out(folded, c.in(3), c.in(4));
            return;
        }
        Value scale = Lower.reshape(g, c.in(1), cd);
        Value bias = Lower.reshape(g, c.in(2), cd);
        Value mean = Lower.reshape(g, c.in(3), cd);
        Value var = Lower.reshape(g, c.in(4), cd);
        Value eps = Lower.scalar(g, var.dtype(), c.attrFloat("epsilon", 1e-5f));
        Value k = g.div(scale, g.sqrt(g.add(var, eps)));
        c.out(g.add(g.mul(g.sub(x, mean), k), bias), c.in(3), c.in(4));
    }

    /**
     * {@code x * k + shift} with {@code k = scale / sqrt(var + eps)} and {@code shift = bias - mean * k} computed
     * now, in double, when the four statistics are weights or constants (an inference model's): two ops that fuse
     * with their neighbours, and no run-time arithmetic on the raw statistics, whose values need not fit a half
     * type (a running variance of 1e8 in PP-OCRv4's detector became infinity under the F16 policy, and its
     * output zeros). Null when a statistic is only known at run time.
     */
    private static Value foldedBatchNorm(NodeCtx c, Value x, int[] cd) {
        if (!x.dtype().isFloat()) {
            return null;
        }
        Tensor[] st = new Tensor[4];
        for (int i = 0; i < 4; i++) {
            st[i] = c.importer().tryStatic(c.in(1 + i), false);
            if (st[i] == null || st[i].shape().elementCount() != cd[0]) {
                return null;
            }
        }
        double eps = c.attrFloat("epsilon", 1e-5f);
        double[] k = new double[cd[0]];
        double[] shift = new double[cd[0]];
        for (int ch = 0; ch < cd[0]; ch++) {
            k[ch] = st[0].getDouble(ch) / Math.sqrt(st[3].getDouble(ch) + eps);
            shift[ch] = st[1].getDouble(ch) - st[2].getDouble(ch) * k[ch];
        }
        Graph g = c.g();
        return g.add(g.mul(x, constant(g, k, x.dtype(), cd)), constant(g, shift, x.dtype(), cd));
    }

    private static Value constant(Graph g, double[] v, DType t, int[] dims) {
        if (t == DType.F64) {
            return g.constant(Tensor.of(v, dims));
        }
        float[] f = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            f[i] = (float) v[i];
        }
        Value c = g.constant(Tensor.of(f, dims));
        return t == DType.F32 ? c : g.cast(c, t);
    }

    private static void layerNorm(NodeCtx c) {
        Graph g = c.g();
        Value x = c.in(0);
        int axis = Lower.axis(c, c.attrInt("axis", -1), x.rank());
        float eps = c.attrFloat("epsilon", 1e-5f);
        int[] norm = Arrays.copyOfRange(x.shape().dims(), axis, x.rank());
        Value gamma = ShapeOps.expand(c, c.in(1), norm);
        Value beta = c.has(2) ? ShapeOps.expand(c, c.in(2), norm) : null;
        if (gamma.rank() != norm.length || (beta != null && beta.rank() != norm.length)) {
            throw c.fail("scale %s and bias must broadcast to the normalised dims %s", c.in(1).shape(), Arrays.toString(norm));
        }
        c.out(g.layerNorm(x, gamma, beta, axis, eps));
        if (c.wantsOutput(1) || c.wantsOutput(2)) {
            int[] axes = new int[x.rank() - axis];
            for (int i = 0; i < axes.length; i++) {
                axes[i] = axis + i;
            }
            Value mean = g.reduceMean(x, true, axes);
            Value dev = g.sub(x, mean);
            Value var = g.reduceMean(g.mul(dev, dev), true, axes);
            c.out(1, mean);
            c.out(2, g.rsqrt(g.add(var, Lower.scalar(g, x.dtype(), eps))));
        }
    }

    /** LRN: the channel-window sum of squares is an average pool over a [N, 1, C, rest] view. */
    private static void lrn(NodeCtx c) {
        Graph g = c.g();
        Value x = c.in(0);
        if (x.rank() < 3) {
            throw c.fail("x %s must be [N, C, *spatial]", x.shape());
        }
        int size = (int) c.attrInt("size", 0);
        if (size <= 0) {
            throw c.fail("size must be positive but is %d", size);
        }
        double alpha = c.attrFloat("alpha", 1e-4f);
        double beta = c.attrFloat("beta", 0.75f);
        double bias = c.attrFloat("bias", 1f);
        int n = x.dim(0);
        int ch = x.dim(1);
        int rest = Tensors.toInt(x.shape().elementCount(2, x.rank()), "spatial size");
        Value sq = Lower.reshape(g, g.mul(x, x), n, 1, ch, rest);
        int before = (size - 1) / 2;
        int after = size - 1 - before;
        var spec = Op.Pool.of(Op.Pool.Kind.AVG, size, 1).withStrides(1, 1).withPads(before, 0, after, 0)
                .withCountIncludePad(true);
        Value mean = Lower.reshape(g, g.pool(sq, spec), x.shape().dims());
        DType t = x.dtype();
        Value den = g.pow(g.add(Lower.scalar(g, t, bias), g.mul(mean, Lower.scalar(g, t, alpha))), Lower.scalar(g, t, beta));
        c.out(g.div(x, den));
    }
}
