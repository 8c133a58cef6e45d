package dev.rlx.onnx;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Movement and shape ONNX ops. Shapes are static in RLX, so Shape and Size become constants, and every
 * shape-valued input (Reshape's target, Slice's starts, Tile's repeats) is read at import time.
 */
final class ShapeOps {
    private ShapeOps() {}

    static void register(Map<String, Converter> t) {
        t.put("Reshape", ShapeOps::reshape);
        t.put("Flatten", c -> {
            Value x = c.in(0);
            int axis = (int) c.attrInt("axis", 1);
            int a = axis < 0 ? axis + x.rank() : axis;
            if (a < 0 || a > x.rank()) {
                throw c.fail("axis %d is out of range for %s", axis, x.shape());
            }
            long outer = x.shape().elementCount(0, a);
            long inner = x.shape().elementCount(a, x.rank());
            c.out(Lower.reshape(c.g(), x, Tensors.toInt(outer, "flattened dim"), Tensors.toInt(inner, "flattened dim")));
        });
        t.put("Squeeze", ShapeOps::squeeze);
        t.put("Unsqueeze", ShapeOps::unsqueeze);
        t.put("Transpose", c -> {
            Value x = c.in(0);
            long[] perm = c.attrInts("perm", null);
            int[] p = new int[x.rank()];
            if (perm != null && perm.length != x.rank()) {
                throw c.fail("perm %s has %d entries but the input has rank %d", Arrays.toString(perm), perm.length, x.rank());
            }
            for (int i = 0; i < p.length; i++) {
                p[i] = perm == null ? p.length - 1 - i : Lower.axis(c, perm[i], x.rank());
            }
            c.out(c.g().transpose(x, p));
        });
        t.put("Concat", c -> {
            List<Value> in = c.ins();
            if (!c.hasAttr("axis") && c.opset() >= 4) {
                throw c.fail("needs the axis attribute");
            }
            int axis = Lower.axis(c, c.attrInt("axis", 1), in.get(0).rank());
            c.out(in.size() == 1 ? in.get(0) : c.g().concat(axis, in.toArray(Value[]::new)));
        });
        t.put("Split", ShapeOps::split);
        t.put("Slice", ShapeOps::slice);
        t.put("Expand", c -> {
            Value x = c.in(0);
            int[] shape = Lower.ints(c, c.longs(1), "shape");
            c.out(expand(c, x, shape));
        });
        t.put("Tile", ShapeOps::tile);
        t.put("Pad", ShapeOps::pad);
        t.put("Shape", c -> {
            int[] d = c.in(0).shape().dims();
            int r = d.length;
            int start = clampIndex(c.attrInt("start", 0), r);
            int end = clampIndex(c.attrInt("end", r), r);
            long[] v = new long[Math.max(0, end - start)];
            for (int i = 0; i < v.length; i++) {
                v[i] = d[start + i];
            }
            c.out(c.g().constant(Tensor.of(v, v.length)));
        });
        t.put("Size", c -> c.out(c.g().constant(Tensor.scalar(DType.I64, c.in(0).shape().elementCount()))));
        t.put("DepthToSpace", ShapeOps::depthToSpace);
        t.put("SpaceToDepth", ShapeOps::spaceToDepth);
    }

    private static int clampIndex(long i, int rank) {
        long v = i < 0 ? i + rank : i;
        return (int) Math.max(0, Math.min(rank, v));
    }

    private static void reshape(NodeCtx c) {
        Value x = c.in(0);
        long[] shape = c.opset() < 5 ? c.attrInts("shape", null) : c.longs(1);
        if (shape == null) {
            throw c.fail("needs a shape");
        }
        boolean allowZero = c.attrInt("allowzero", 0) != 0;
        int[] d = new int[shape.length];
        for (int i = 0; i < d.length; i++) {
            long v = shape[i];
            if (v == 0 && !allowZero) {
                if (i >= x.rank()) {
                    throw c.fail("shape %s copies dim %d but the input %s has rank %d", Arrays.toString(shape), i,
                            x.shape(), x.rank());
                }
                v = x.dim(i);
            }
            if (v < -1 || v > Integer.MAX_VALUE) {
                throw c.fail("shape %s has an invalid dim %d", Arrays.toString(shape), v);
            }
            d[i] = (int) v;
        }
        c.out(c.g().reshape(x, d));
    }

    private static long[] axesInputOrAttr(NodeCtx c) {
        if (c.opset() >= 13) {
            return c.has(1) ? c.longs(1) : null;
        }
        return c.attrInts("axes", null);
    }

    private static void squeeze(NodeCtx c) {
        Value x = c.in(0);
        long[] axes = axesInputOrAttr(c);
        List<Integer> keep = new ArrayList<>();
        if (axes == null) {
            for (int d : x.shape().dims()) {
                if (d != 1) {
                    keep.add(d);
                }
            }
        } else {
            int[] a = Lower.axes(c, axes, x.rank());
            for (int i : a) {
                if (x.dim(i) != 1) {
                    throw c.fail("cannot squeeze axis %d of %s: its size is not 1", i, x.shape());
                }
            }
            for (int d : Lower.without(x.shape(), a)) {
                keep.add(d);
            }
        }
        c.out(Lower.reshape(c.g(), x, keep.stream().mapToInt(Integer::intValue).toArray()));
    }

    private static void unsqueeze(NodeCtx c) {
        Value x = c.in(0);
        long[] axes = axesInputOrAttr(c);
        if (axes == null) {
            throw c.fail("needs axes");
        }
        c.out(Lower.unsqueeze(c.g(), x, Lower.axes(c, axes, x.rank() + axes.length)));
    }

    /** NumPy broadcast of {@code x} with {@code shape} (ONNX Expand broadcasts both ways). */
    static Value expand(NodeCtx c, Value x, int[] shape) {
        int r = Math.max(x.rank(), shape.length);
        int[] out = new int[r];
        for (int i = 0; i < r; i++) {
            int a = i - (r - x.rank()) >= 0 ? x.dim(i - (r - x.rank())) : 1;
            int b = i - (r - shape.length) >= 0 ? shape[i - (r - shape.length)] : 1;
            if (a != b && a != 1 && b != 1) {
                throw c.fail("cannot expand %s to %s", x.shape(), Arrays.toString(shape));
            }
            out[i] = a == 1 ? b : a;
        }
        return Arrays.equals(out, x.shape().dims()) ? x : c.g().expand(x, out);
    }

    private static void split(NodeCtx c) {
        Value x = c.in(0);
        int axis = Lower.axis(c, c.attrInt("axis", 0), x.rank());
        long[] split = c.opset() >= 13 || (c.opset() < 2 && c.has(1)) ? (c.has(1) ? c.longs(1) : null)
                : c.attrInts("split", null);
        int n = x.dim(axis);
        int parts = c.outputCount();
        if (split == null) {
            long k = c.attrInt("num_outputs", parts);
            if (k <= 0 || k > Math.max(parts, 1)) {
                throw c.fail("cannot split into %d parts (the node has %d outputs)", k, parts);
            }
            int each = (int) ((n + k - 1) / k);
            split = new long[(int) k];
            for (int i = 0; i < k; i++) {
                split[i] = Math.max(0, Math.min(each, n - (long) i * each));
            }
        }
        long total = 0;
        for (long s : split) {
            if (s < 0) {
                throw c.fail("split sizes %s must be non-negative", Arrays.toString(split));
            }
            total += s;
        }
        if (total != n) {
            throw c.fail("split sizes %s add up to %d but axis %d of %s has %d", Arrays.toString(split), total, axis,
                    x.shape(), n);
        }
        Value[] outs = new Value[split.length];
        int start = 0;
        for (int i = 0; i < split.length; i++) {
            outs[i] = split[i] == n ? x : c.g().narrow(x, axis, start, (int) split[i]);
            start += (int) split[i];
        }
        c.out(outs);
    }

    private static void slice(NodeCtx c) {
        Value x = c.in(0);
        long[] starts;
        long[] ends;
        long[] axes;
        long[] steps = null;
        if (c.opset() < 10) {
            starts = c.attrInts("starts", null);
            ends = c.attrInts("ends", null);
            axes = c.attrInts("axes", null);
        } else {
            starts = c.longs(1);
            ends = c.longs(2);
            axes = c.has(3) ? c.longs(3) : null;
            steps = c.has(4) ? c.longs(4) : null;
        }
        if (starts == null || ends == null || starts.length != ends.length) {
            throw c.fail("starts and ends must be given with equal lengths");
        }
        if (axes == null) {
            axes = new long[starts.length];
            for (int i = 0; i < axes.length; i++) {
                axes[i] = i;
            }
        }
        if (axes.length != starts.length || (steps != null && steps.length != starts.length)) {
            throw c.fail("starts, ends, axes and steps must have equal lengths");
        }
        Lower.axes(c, axes, x.rank()); // rejects repeats
        Value y = x;
        for (int i = 0; i < starts.length; i++) {
            int axis = Lower.axis(c, axes[i], x.rank());
            long step = steps == null ? 1 : steps[i];
            if (step == 0) {
                throw c.fail("step must not be 0");
            }
            long n = x.dim(axis);
            long s = starts[i] < 0 ? starts[i] + n : starts[i];
            long e = ends[i] < 0 ? ends[i] + n : ends[i];
            long len;
            if (step > 0) {
                s = Math.max(0, Math.min(n, s));
                e = Math.max(0, Math.min(n, e));
                len = e > s ? (e - s + step - 1) / step : 0;
            } else {
                s = Math.max(-1, Math.min(n - 1, s));
                e = Math.max(-1, Math.min(n - 1, e));
                len = s > e ? (s - e + (-step) - 1) / (-step) : 0;
            }
            if (step != (int) step) {
                step = step > 0 ? n : -n; // a step past the axis takes one element either way
            }
            if (len == n && step == 1) {
                continue;
            }
            y = c.g().slice(y, axis, len == 0 ? 0 : (int) s, (int) len, (int) step);
        }
        c.out(y);
    }

    /** Tile as reshape to {@code [1, d0, 1, d1, ...]}, expand to {@code [r0, d0, r1, d1, ...]}, reshape. */
    private static void tile(NodeCtx c) {
        Value x = c.in(0);
        long[] reps = c.longs(1);
        if (reps.length != x.rank()) {
            throw c.fail("repeats %s must have one entry per dim of %s", Arrays.toString(reps), x.shape());
        }
        int r = x.rank();
        int[] inter = new int[2 * r];
        int[] big = new int[2 * r];
        int[] out = new int[r];
        boolean same = true;
        for (int i = 0; i < r; i++) {
            if (reps[i] < 0 || reps[i] * x.dim(i) > Integer.MAX_VALUE) {
                throw c.fail("repeat %d of dim %d of %s is out of range", reps[i], i, x.shape());
            }
            inter[2 * i] = 1;
            inter[2 * i + 1] = x.dim(i);
            big[2 * i] = (int) reps[i];
            big[2 * i + 1] = x.dim(i);
            out[i] = (int) (reps[i] * x.dim(i));
            same &= reps[i] == 1;
        }
        if (same) {
            c.out(x);
            return;
        }
        Graph g = c.g();
        c.out(Lower.reshape(g, g.expand(Lower.reshape(g, x, inter), big), out));
    }

    private static void pad(NodeCtx c) {
        Graph g = c.g();
        Value x = c.in(0);
        int r = x.rank();
        long[] pads;
        String mode = c.attrString("mode", "constant");
        Value fill;
        if (c.opset() < 11) {
            pads = c.attrInts(c.hasAttr("pads") ? "pads" : "paddings", null);
            fill = Lower.scalar(g, x.dtype(), c.attrFloat("value", 0f));
        } else {
            pads = c.longs(1);
            fill = c.has(2) ? Lower.reshape(g, c.in(2)) : Lower.scalar(g, x.dtype(), 0);
        }
        long[] axes = c.has(3) ? c.longs(3) : null;
        if (pads == null) {
            throw c.fail("needs pads");
        }
        int[] ax = new int[axes == null ? r : axes.length];
        for (int i = 0; i < ax.length; i++) {
            ax[i] = axes == null ? i : Lower.axis(c, axes[i], r);
        }
        if (pads.length != 2 * ax.length) {
            throw c.fail("pads %s must have 2 entries per padded axis (%d)", Arrays.toString(pads), ax.length);
        }
        Value y = x;
        for (int i = 0; i < ax.length; i++) {
            int a = ax[i];
            long b = pads[i];
            long e = pads[i + ax.length];
            int n = y.dim(a);
            if (b < 0 || e < 0) { // negative pads crop
                long cb = Math.max(0, -b);
                long ce = Math.max(0, -e);
                if (cb + ce > n) {
                    throw c.fail("pads %s crop more than axis %d of %s", Arrays.toString(pads), a, x.shape());
                }
                y = g.narrow(y, a, (int) cb, (int) (n - cb - ce));
                b = Math.max(0, b);
                e = Math.max(0, e);
                n = y.dim(a);
            }
            if (b == 0 && e == 0) {
                continue;
            }
            if (b > Integer.MAX_VALUE / 4 || e > Integer.MAX_VALUE / 4) {
                throw c.fail("pads %s are too large", Arrays.toString(pads));
            }
            List<Value> parts = new ArrayList<>();
            parts.add(padPart(c, y, a, (int) b, true, mode, fill));
            parts.add(y);
            parts.add(padPart(c, y, a, (int) e, false, mode, fill));
            parts.removeIf(p -> p == null);
            y = g.concat(a, parts.toArray(Value[]::new));
        }
        c.out(y);
    }

    /** The {@code k} cells padded before ({@code begin}) or after {@code y} along {@code axis}; null for 0. */
    private static Value padPart(NodeCtx c, Value y, int axis, int k, boolean begin, String mode, Value fill) {
        if (k == 0) {
            return null;
        }
        Graph g = c.g();
        int n = y.dim(axis);
        Shape s = y.shape().withDim(axis, k);
        return switch (mode) {
            case "constant" -> g.expand(Lower.cast(g, fill, y.dtype()), s.dims());
            case "edge" -> {
                if (n == 0) {
                    throw c.fail("edge padding of an empty axis %d", axis);
                }
                yield g.expand(g.narrow(y, axis, begin ? 0 : n - 1, 1), s.dims());
            }
            case "reflect" -> {
                if (k > n - 1) {
                    throw c.fail("reflect padding %d needs axis %d of %s to be longer than %d", k, axis, y.shape(), k);
                }
                yield begin ? g.slice(y, axis, k, k, -1) : g.slice(y, axis, n - 2, k, -1);
            }
            default -> throw c.unsupported("Pad(mode=" + mode + ")", "pad mode '%s' is not supported", mode);
        };
    }

    private static void depthToSpace(NodeCtx c) {
        Value x = c.in(0);
        int b = (int) c.attrInt("blocksize", 0);
        if (x.rank() != 4 || b <= 0 || x.dim(1) % (b * b) != 0) {
            throw c.fail("needs [N, C, H, W] with C divisible by blocksize^2 (blocksize %d, input %s)", b, x.shape());
        }
        int n = x.dim(0);
        int ch = x.dim(1) / (b * b);
        int h = x.dim(2);
        int w = x.dim(3);
        Graph g = c.g();
        boolean crd = c.attrString("mode", "DCR").equals("CRD");
        Value y = crd ? g.transpose(g.reshape(x, n, ch, b, b, h, w), 0, 1, 4, 2, 5, 3)
                : g.transpose(g.reshape(x, n, b, b, ch, h, w), 0, 3, 4, 1, 5, 2);
        c.out(g.reshape(y, n, ch, h * b, w * b));
    }

    private static void spaceToDepth(NodeCtx c) {
        Value x = c.in(0);
        int b = (int) c.attrInt("blocksize", 0);
        if (x.rank() != 4 || b <= 0 || x.dim(2) % b != 0 || x.dim(3) % b != 0) {
            throw c.fail("needs [N, C, H, W] with H and W divisible by blocksize (blocksize %d, input %s)", b, x.shape());
        }
        Graph g = c.g();
        int n = x.dim(0);
        int ch = x.dim(1);
        int h = x.dim(2) / b;
        int w = x.dim(3) / b;
        Value y = g.transpose(g.reshape(x, n, ch, h, b, w, b), 0, 3, 5, 1, 2, 4);
        c.out(g.reshape(y, n, ch * b * b, h, w));
    }
}
