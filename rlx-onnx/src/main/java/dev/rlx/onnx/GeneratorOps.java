package dev.rlx.onnx;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.ir.limits.Limits;
import java.util.Map;

/** ONNX ops that make tensors from attributes or import-time values: Constant, Range, EyeLike, windows. */
final class GeneratorOps {
    private GeneratorOps() {}

    /** Largest tensor a generator may make at import time. */
    static final long MAX_ELEMENTS = 1L << 26;

    static void register(Map<String, Converter> t) {
        t.put("Constant", GeneratorOps::constant);
        t.put("ConstantOfShape", c -> {
            int[] dims = Lower.ints(c, c.longs(0), "dim");
            Tensor v = c.attrTensor("value");
            if (v == null) {
                v = Tensor.scalar(0f);
            }
            if (v.shape().elementCount() != 1) {
                throw c.fail("value must have one element but is %s", v.shape());
            }
            Shape s = checked(c, v.dtype(), dims);
            Graph g = c.g();
            Value one = g.constant(Tensor.ofBytes(Shape.scalar(v.dtype()), v.bytes()));
            c.out(dims.length == 0 ? one : g.expand(one, s.dims()));
        });
        t.put("Range", GeneratorOps::range);
        t.put("EyeLike", c -> {
            Value x = c.in(0);
            if (x.rank() != 2) {
                throw c.fail("input must be 2-D but is %s", x.shape());
            }
            DType dt = c.hasAttr("dtype") ? ElementwiseOps.castTarget(c, c.attrInt("dtype", 1)) : x.dtype();
            long k = c.attrInt("k", 0);
            int n = x.dim(0);
            int m = x.dim(1);
            if ((long) n * m > MAX_ELEMENTS) { // materialised here as doubles
                throw c.fail("a %d x %d identity has more than %d elements", n, m, MAX_ELEMENTS);
            }
            double[] v = new double[n * m];
            for (int i = 0; i < n; i++) {
                long j = i + k;
                if (j >= 0 && j < m) {
                    v[(int) (i * m + j)] = 1;
                }
            }
            c.out(c.g().constant(Tensors.of(dt, new int[] {n, m}, v)));
        });
        t.put("Trilu", c -> {
            Value x = c.in(0);
            if (x.rank() < 2) {
                throw c.fail("input must have rank >= 2 but is %s", x.shape());
            }
            long k = c.has(1) ? c.scalarLong(1) : 0;
            boolean upper = c.attrInt("upper", 1) != 0;
            int n = x.dim(x.rank() - 2);
            int m = x.dim(x.rank() - 1);
            checked(c, DType.BOOL, new int[] {n, m});
            boolean[] keep = new boolean[n * m];
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < m; j++) {
                    keep[i * m + j] = upper ? j - i >= k : j - i <= k;
                }
            }
            Graph g = c.g();
            c.out(g.where(g.constant(Tensor.of(keep, n, m)), x, Lower.scalar(g, x.dtype(), 0)));
        });
        t.put("HannWindow", c -> window(c, new double[] {0.5, 0.5, 0}));
        t.put("HammingWindow", c -> window(c, new double[] {25.0 / 46, 21.0 / 46, 0}));
        t.put("BlackmanWindow", c -> window(c, new double[] {0.42, 0.5, 0.08}));
    }

    private static Shape checked(NodeCtx c, DType t, int[] dims) {
        for (int d : dims) {
            if (d < 0) {
                throw c.fail("dims %s must be non-negative", java.util.Arrays.toString(dims));
            }
        }
        Shape s = Shape.of(t, dims);
        c.importer().limits().check(Limits.Kind.TENSOR_BYTES, c.describe() + ": " + s, s.byteSize());
        return s;
    }

    private static void constant(NodeCtx c) {
        Tensor v;
        if (c.hasAttr("value")) {
            v = c.attrTensor("value");
        } else if (c.hasAttr("value_float")) {
            v = Tensor.scalar(c.attrFloat("value_float", 0));
        } else if (c.hasAttr("value_floats")) {
            float[] f = c.attrFloats("value_floats", null);
            v = Tensor.of(f, f.length);
        } else if (c.hasAttr("value_int")) {
            v = Tensor.scalar(DType.I64, c.attrInt("value_int", 0));
        } else if (c.hasAttr("value_ints")) {
            long[] l = c.attrInts("value_ints", null);
            v = Tensor.of(l, l.length);
        } else if (c.hasAttr("value_string") || c.hasAttr("value_strings")) {
            throw c.unsupported("dtype STRING", "string constants are not supported");
        } else if (c.hasAttr("sparse_value")) {
            throw c.unsupported("sparse tensors", "sparse constants are not supported");
        } else {
            throw c.fail("needs a value attribute");
        }
        c.out(c.g().constant(v));
    }

    private static void range(NodeCtx c) {
        Tensor start = c.constant(0);
        DType t = start.dtype();
        double s = c.scalarDouble(0);
        double limit = c.scalarDouble(1);
        double delta = c.scalarDouble(2);
        if (delta == 0 || !Double.isFinite(s) || !Double.isFinite(limit) || !Double.isFinite(delta)) {
            throw c.fail("start %s, limit %s and delta %s must be finite with delta != 0", s, limit, delta);
        }
        double count = Math.max(0, Math.ceil((limit - s) / delta));
        if (count > MAX_ELEMENTS) { // materialised here as doubles: a fixed cap besides the tensor limit
            throw c.fail("the range would have %s elements, more than %d", count, MAX_ELEMENTS);
        }
        c.importer().limits().check(Limits.Kind.TENSOR_BYTES, c.describe() + ": the range of " + (long) count + " "
                + t.label() + " elements", (long) count * t.byteSize());
        int n = (int) count;
        double[] v = new double[n];
        if (t == DType.F32) { // accumulate as ONNX's reference does, in the element type
            float acc = (float) s;
            for (int i = 0; i < n; i++) {
                v[i] = acc;
                acc += (float) delta;
            }
        } else {
            for (int i = 0; i < n; i++) {
                v[i] = s + i * delta;
            }
        }
        c.out(c.g().constant(Tensors.of(t, new int[] {n}, v)));
    }

    /** Generalised cosine window {@code a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N)}. */
    private static void window(NodeCtx c, double[] a) {
        long size = c.scalarLong(0);
        if (size < 0 || size > MAX_ELEMENTS) {
            throw c.fail("window size %d is out of range", size);
        }
        boolean periodic = c.attrInt("periodic", 1) != 0;
        DType t = ElementwiseOps.castTarget(c, c.attrInt("output_datatype", OnnxTypes.FLOAT));
        int n = (int) size;
        double denom = periodic ? n : n - 1;
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            double x = 2 * Math.PI * i / denom;
            v[i] = a[0] - a[1] * Math.cos(x) + a[2] * Math.cos(2 * x);
        }
        c.out(c.g().constant(Tensors.of(t, new int[] {n}, v)));
    }
}
