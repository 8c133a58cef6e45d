package dev.rlx.onnx;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Op;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import java.util.Arrays;
import java.util.Map;

/**
 * Linear quantization ops: quantize ({@code saturate(round_half_even(x / scale) + zp)}), dequantize
 * ({@code (q - zp) * scale}), and integer matmul/conv, computed exactly (integer matmul in I32, integer conv
 * in F64, whose 53-bit mantissa holds every 8-bit product sum a model can have).
 */
final class QuantOps {
    private QuantOps() {}

    static void register(Map<String, Converter> t) {
        t.put("QuantizeLinear", c -> {
            Value x = c.in(0);
            DType qt = c.has(2) ? c.dtype(2) : DType.U8;
            Value zp = c.has(2) ? perAxis(c, c.in(2), x) : null;
            c.out(quantize(c.g(), x, perAxis(c, c.in(1), x), zp, qt));
        });
        t.put("DequantizeLinear", c -> {
            Graph g = c.g();
            Value x = c.in(0);
            Value scale = perAxis(c, c.in(1), x);
            Value v = Lower.cast(g, x, scale.dtype());
            if (c.has(2)) {
                v = g.sub(v, Lower.cast(g, perAxis(c, c.in(2), x), scale.dtype()));
            }
            c.out(g.mul(v, scale));
        });
        t.put("DynamicQuantizeLinear", QuantOps::dynamicQuantize);
        t.put("MatMulInteger", QuantOps::matMulInteger);
        t.put("ConvInteger", c -> {
            Graph g = c.g();
            Value x = centred(g, c.in(0), c.has(2) ? c.in(2) : null, DType.F64, null);
            Value w = centred(g, c.in(1), c.has(3) ? c.in(3) : null, DType.F64, weightChannels(c.in(1)));
            c.out(g.cast(conv(c, x, w), DType.I32));
        });
        t.put("QLinearMatMul", c -> {
            Graph g = c.g();
            Value a = centred(g, c.in(0), c.in(2), DType.F64, rowZeroPoint(c, 2, c.in(0)));
            Value b = centred(g, c.in(3), c.in(5), DType.F64, null);
            Value acc = g.matmul(a, b);
            Value ratio = g.div(g.mul(c.in(1), c.in(4)), c.in(6)); // in f32, as ONNX's reference
            c.out(requantize(g, acc, ratio, c.in(7)));
        });
        t.put("QLinearConv", c -> {
            Graph g = c.g();
            Value x = centred(g, c.in(0), c.in(2), DType.F64, null);
            Value w = centred(g, c.in(3), c.in(5), DType.F64, weightChannels(c.in(3)));
            Value acc = conv(c, x, w);
            if (c.has(8)) {
                acc = g.add(acc, Lower.reshape(g, Lower.cast(g, c.in(8), DType.F64), outputChannels(acc)));
            }
            Value wScale = c.in(4).shape().elementCount() > 1 ? Lower.reshape(g, c.in(4), outputChannels(acc)) : c.in(4);
            Value ratio = g.div(g.mul(c.in(1), wScale), c.in(6));
            c.out(requantize(g, acc, ratio, c.in(7)));
        });
    }

    /**
     * An integer matmul, exact. When B (with its zero point) is known at import and no partial sum can reach
     * 2^24 in magnitude (|A - zpA| <= 255 times B's largest column sum of |B - zpB|), f32 arithmetic is exact
     * too: the product runs on the f32 GEMM, and a Cast of the result to float reads the f32 product directly
     * (see {@link Importer#exactFloat}). Otherwise it runs in I32.
     */
    private static void matMulInteger(NodeCtx c) {
        Graph g = c.g();
        Value a = c.in(0);
        Value zpA = c.has(2) ? c.in(2) : null;
        Tensor b = c.importer().tryStatic(c.in(1), false);
        Tensor zpB = !c.has(3) ? null : c.importer().tryStatic(c.in(3), false);
        if (b != null && b.shape().rank() == 2 && (zpB != null || !c.has(3)) && a.rank() >= 2) {
            float[] centredB = centredMatrix(b, zpB);
            if (centredB != null) {
                Value af = centred(g, c.importer().exactOrSelf(a), zpA == null ? null : c.importer().exactOrSelf(zpA),
                        DType.F32, rowZeroPoint(c, 2, a));
                Value y = g.matmul(af, g.constant(Tensor.of(centredB, b.shape().dims())));
                Value out = g.cast(y, DType.I32);
                c.importer().exactFloat(out, y);
                c.out(out);
                return;
            }
        }
        Value ai = centred(g, a, zpA, DType.I32, rowZeroPoint(c, 2, a));
        Value bi = centred(g, c.in(1), c.has(3) ? c.in(3) : null, DType.I32, null);
        c.out(g.matmul(ai, bi));
    }

    /**
     * {@code b - zp} as floats ({@code zp} a scalar or one per column, may be null), or null when some column's
     * sum of magnitudes times 255 reaches 2^24, where f32 sums could round.
     */
    private static float[] centredMatrix(Tensor b, Tensor zp) {
        int k = b.shape().dim(0);
        int n = b.shape().dim(1);
        if (zp != null && zp.shape().elementCount() != 1 && zp.shape().elementCount() != n) {
            return null;
        }
        float[] out = new float[k * n];
        double[] colSum = new double[n];
        for (int i = 0; i < k; i++) {
            for (int j = 0; j < n; j++) {
                double v = b.getDouble((long) i * n + j)
                        - (zp == null ? 0 : zp.getDouble(zp.shape().elementCount() == 1 ? 0 : j));
                out[i * n + j] = (float) v;
                colSum[j] += Math.abs(v);
            }
        }
        for (double s : colSum) {
            if (s * 255 >= 1 << 24) {
                return null;
            }
        }
        return out;
    }

    /** A scale or zero point: a scalar, or 1-D along {@code axis} of {@code x} and reshaped to broadcast. */
    private static Value perAxis(NodeCtx c, Value s, Value x) {
        if (s.shape().elementCount() == 1 || s.rank() == 0) {
            return Lower.reshape(c.g(), s);
        }
        int axis = Lower.axis(c, c.attrInt("axis", 1), x.rank());
        if (s.rank() != 1 || s.dim(0) != x.dim(axis)) {
            throw c.fail("per-axis scale or zero point %s must have %d entries (axis %d of %s)", s.shape(), x.dim(axis),
                    axis, x.shape());
        }
        int[] d = new int[x.rank()];
        Arrays.fill(d, 1);
        d[axis] = s.dim(0);
        return Lower.reshape(c.g(), s, d);
    }

    /** {@code saturate(round(x / scale) + zp)} in {@code qt}. */
    static Value quantize(Graph g, Value x, Value scale, Value zp, DType qt) {
        Value q = g.round(g.div(Lower.cast(g, x, scale.dtype()), scale));
        if (zp != null) {
            q = g.add(q, Lower.cast(g, zp, q.dtype()));
        }
        return g.cast(saturate(g, q, qt), qt);
    }

    private static Value saturate(Graph g, Value q, DType qt) {
        double lo = qt == DType.U8 ? 0 : qt == DType.I8 ? -128 : Integer.MIN_VALUE;
        double hi = qt == DType.U8 ? 255 : qt == DType.I8 ? 127 : Integer.MAX_VALUE;
        return g.min(g.max(q, Lower.scalar(g, q.dtype(), lo)), Lower.scalar(g, q.dtype(), hi));
    }

    /** {@code round(acc * ratio) + zp}, saturated to the zero point's type. */
    private static Value requantize(Graph g, Value acc, Value ratio, Value zp) {
        Value q = g.add(g.round(g.mul(acc, Lower.cast(g, ratio, DType.F64))), Lower.cast(g, zp, DType.F64));
        return g.cast(saturate(g, q, zp.dtype()), zp.dtype());
    }

    private static void dynamicQuantize(NodeCtx c) {
        Graph g = c.g();
        Value x = c.in(0);
        Value zero = Lower.scalar(g, x.dtype(), 0);
        Value lo = g.min(g.reduceMin(x, false), zero);
        Value hi = g.max(g.reduceMax(x, false), zero);
        Value scale = g.div(g.sub(hi, lo), Lower.scalar(g, x.dtype(), 255));
        Value zpf = saturate(g, g.round(g.sub(zero, g.div(lo, scale))), DType.U8);
        Value zp = g.cast(zpf, DType.U8);
        Value qf = saturate(g, g.add(roundBounded(g, g.div(x, scale)), zpf), DType.U8);
        Value q = g.cast(qf, DType.U8);
        // both are whole numbers in [0, 255] before the cast: a consumer wanting floats can take them as they are
        c.importer().exactFloat(q, qf);
        c.importer().exactFloat(zp, zpf);
        c.out(q, scale, zp);
    }

    /**
     * Round half to even of f32 {@code v} with {@code |v| < 2^22}, as {@code (v + 1.5 * 2^23) - 1.5 * 2^23}: the
     * add lands in a binade where the float spacing is 1, so the hardware's round-to-nearest-even does the
     * rounding, and the subtraction is exact. Two element-wise adds, where the generic round is a scalar loop.
     * DynamicQuantizeLinear's {@code x / scale} qualifies: {@code |x| <= 255 * scale} by construction.
     */
    private static Value roundBounded(Graph g, Value v) {
        if (v.dtype() != DType.F32) {
            return g.round(v);
        }
        Value shift = Lower.scalar(g, DType.F32, 0x1.8p23);
        return g.sub(g.add(v, shift), shift);
    }

    /** {@code x - zp} in {@code t}; a zero point of several entries takes {@code zpShape} to broadcast. */
    private static Value centred(Graph g, Value x, Value zp, DType t, int[] zpShape) {
        Value v = Lower.cast(g, x, t);
        if (zp == null) {
            return v;
        }
        Value z = Lower.cast(g, zp, t);
        if (z.shape().elementCount() == 1) {
            z = Lower.reshape(g, z);
        } else if (zpShape != null) {
            z = Lower.reshape(g, z, zpShape);
        }
        return g.sub(v, z);
    }

    /** A per-row zero point of a matmul's A ({@code [M]}) broadcast as {@code [M, 1]}; null for a scalar. */
    private static int[] rowZeroPoint(NodeCtx c, int input, Value a) {
        if (!c.has(input) || c.in(input).shape().elementCount() <= 1 || a.rank() < 2) {
            return null;
        }
        return new int[] {a.dim(a.rank() - 2), 1};
    }

    /** {@code [M, 1, ..., 1]} of a conv weight's rank, for per-output-channel values of the weight. */
    private static int[] weightChannels(Value w) {
        int[] d = new int[w.rank()];
        Arrays.fill(d, 1);
        d[0] = w.dim(0);
        return d;
    }

    /** {@code [M, 1, ..., 1]} broadcasting along the channels (dim 1) of a conv output. */
    private static int[] outputChannels(Value y) {
        int[] d = new int[y.rank() - 1];
        Arrays.fill(d, 1);
        d[0] = y.dim(1);
        return d;
    }

    private static Value conv(NodeCtx c, Value x, Value w) {
        if (x.rank() < 3 || w.rank() != x.rank()) {
            throw c.fail("x %s and w %s must be [N, C, *spatial] and [M, C/group, *kernel]", x.shape(), w.shape());
        }
        int sr = x.rank() - 2;
        ConvGeometry geo = ConvGeometry.of(c, Arrays.copyOfRange(x.shape().dims(), 2, x.rank()),
                Arrays.copyOfRange(w.shape().dims(), 2, w.rank()));
        var spec = new Op.Conv(Lower.list(geo.strides()), Lower.list(geo.pads()), Lower.list(geo.dilations()),
                (int) c.attrInt("group", 1));
        if (spec.strides().size() != sr) {
            throw c.fail("x %s and w %s disagree on spatial rank", x.shape(), w.shape());
        }
        return c.g().conv(x, w, null, spec);
    }
}
