package dev.rlx.onnx;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import java.util.Arrays;
import java.util.Map;

/**
 * Resize and Upsample as separable interpolation: along each resized axis (last first, as ONNX's reference
 * nests them) the taps are gathers with import-time indices, weighted and summed. Shapes are static, so
 * every coordinate, index and weight is computed here, in double, exactly as ONNX's reference defines them.
 */
final class ResizeOps {
    private ResizeOps() {}

    static void register(Map<String, Converter> t) {
        t.put("Resize", ResizeOps::resize);
        t.put("Upsample", c -> {
            Value x = c.in(0);
            double[] scales = c.opset() >= 9 ? c.constant(1).toDoubleArray() : floats(c.attrFloats("scales", null));
            String mode = c.attrString("mode", "nearest");
            c.out(interpolate(c, x, sizes(c, x, scales), scales, mode, "asymmetric", "legacy", null, -0.75, false, 0));
        });
    }

    private static double[] floats(float[] f) {
        if (f == null) {
            return null;
        }
        double[] d = new double[f.length];
        for (int i = 0; i < f.length; i++) {
            d[i] = f[i];
        }
        return d;
    }

    private static void resize(NodeCtx c) {
        Value x = c.in(0);
        int r = x.rank();
        double[] roi = null;
        double[] scales;
        int[] out;
        if (c.opset() < 11) {
            scales = c.constant(1).toDoubleArray();
            out = sizes(c, x, scales);
        } else {
            if (c.has(1) && c.constant(1).shape().elementCount() > 0) {
                roi = c.constant(1).toDoubleArray();
            }
            Tensor s = c.has(2) ? c.constant(2) : null;
            if (s != null && s.shape().elementCount() > 0) {
                scales = s.toDoubleArray();
                out = sizes(c, x, scales);
            } else if (c.has(3)) {
                out = Lower.ints(c, c.longs(3), "size");
                if (out.length != r) {
                    throw c.fail("sizes %s must have one entry per dim of %s", Arrays.toString(out), x.shape());
                }
                scales = new double[r];
                for (int i = 0; i < r; i++) {
                    scales[i] = (double) out[i] / x.dim(i);
                }
            } else {
                throw c.fail("needs scales or sizes");
            }
        }
        String mode = c.attrString("mode", "nearest");
        String coord = c.opset() < 11 ? "asymmetric" : c.attrString("coordinate_transformation_mode", "half_pixel");
        String nearest = c.opset() < 11 ? "legacy" : c.attrString("nearest_mode", "round_prefer_floor");
        c.out(interpolate(c, x, out, scales, mode, coord, nearest, roi, c.attrFloat("cubic_coeff_a", -0.75f),
                c.attrInt("exclude_outside", 0) != 0, c.attrFloat("extrapolation_value", 0f)));
    }

    private static int[] sizes(NodeCtx c, Value x, double[] scales) {
        if (scales == null || scales.length != x.rank()) {
            throw c.fail("scales %s must have one entry per dim of %s", Arrays.toString(scales), x.shape());
        }
        int[] out = new int[x.rank()];
        for (int i = 0; i < out.length; i++) {
            double s = x.dim(i) * scales[i];
            if (!(scales[i] > 0) || s > GeneratorOps.MAX_ELEMENTS) {
                throw c.fail("scale %s of dim %d is out of range", scales[i], i);
            }
            out[i] = (int) Math.floor(s);
        }
        return out;
    }

    private static Value interpolate(NodeCtx c, Value x, int[] out, double[] scales, String mode, String coord,
                                     String nearest, double[] roi, double a, boolean excludeOutside, double extrapolation) {
        Graph g = c.g();
        int r = x.rank();
        if (!mode.equals("nearest") && !mode.equals("linear") && !mode.equals("cubic")) {
            throw c.unsupported("Resize(mode=" + mode + ")", "mode '%s' is not supported", mode);
        }
        if (!mode.equals("nearest") && !x.dtype().isFloat()) {
            throw c.fail("%s interpolation needs a float input but x is %s", mode, x.shape());
        }
        Value y = x;
        for (int axis = r - 1; axis >= 0; axis--) {
            int in = x.dim(axis);
            int n = out[axis];
            if (n == in && coordinateIsIdentity(coord, scales[axis], roi, axis, r)) {
                continue;
            }
            if (in == 0 && n > 0) {
                throw c.fail("cannot resize the empty dim %d of %s to %d", axis, x.shape(), n);
            }
            int taps = mode.equals("nearest") ? 1 : mode.equals("linear") ? 2 : 4;
            long[][] idx = new long[taps][n];
            double[][] w = new double[taps][n];
            boolean[] inside = new boolean[n];
            for (int o = 0; o < n; o++) {
                double xo = original(c, coord, o, scales[axis], in, n, roi, axis, r);
                inside[o] = !coord.equals("tf_crop_and_resize") || (xo >= 0 && xo <= in - 1);
                if (taps == 1) {
                    idx[0][o] = clamp(nearestIndex(c, nearest, xo, scales[axis]), in);
                    w[0][o] = 1;
                    continue;
                }
                long i0 = (long) Math.ceil(xo) - 1; // floor for fractions; x - 1 for integers, with ratio 1
                double ratio = xo - i0;
                double[] coef = taps == 2 ? new double[] {1 - ratio, ratio} : cubic(ratio, a);
                long first = taps == 2 ? i0 : i0 - 1;
                double sum = 0;
                for (int k = 0; k < taps; k++) {
                    long j = first + k;
                    if (excludeOutside && (j < 0 || j >= in)) {
                        coef[k] = 0;
                    }
                    sum += coef[k];
                    idx[k][o] = clamp(j, in);
                }
                for (int k = 0; k < taps; k++) {
                    w[k][o] = excludeOutside && sum != 0 ? coef[k] / sum : coef[k];
                }
            }
            Value acc = null;
            for (int k = 0; k < taps; k++) {
                Value tap = g.gather(y, g.constant(Tensor.of(idx[k], n)), axis);
                if (taps > 1) {
                    tap = g.mul(tap, along(g, y.dtype(), w[k], axis, r));
                }
                acc = acc == null ? tap : g.add(acc, tap);
            }
            if (coord.equals("tf_crop_and_resize")) {
                acc = g.where(along(g, inside, axis, r), acc, Lower.scalar(g, acc.dtype(), extrapolation));
            }
            y = acc;
        }
        return y;
    }

    private static boolean coordinateIsIdentity(String coord, double scale, double[] roi, int axis, int rank) {
        return scale == 1 && !coord.equals("tf_crop_and_resize")
                || coord.equals("tf_crop_and_resize") && roi != null && roi[axis] == 0 && roi[axis + rank] == 1;
    }

    /** The input coordinate of output index {@code o} under {@code coordinate_transformation_mode}. */
    private static double original(NodeCtx c, String coord, int o, double scale, int in, int out, double[] roi,
                                   int axis, int rank) {
        return switch (coord) {
            case "half_pixel" -> (o + 0.5) / scale - 0.5;
            case "pytorch_half_pixel" -> out > 1 ? (o + 0.5) / scale - 0.5 : 0;
            case "align_corners" -> { // the resized length is in * scale, unrounded, as ONNX Runtime takes it
                double len = in * scale;
                yield len == 1 ? 0 : o * (in - 1.0) / (len - 1.0);
            }
            case "asymmetric" -> o / scale;
            case "tf_half_pixel_for_nn" -> (o + 0.5) / scale;
            case "tf_crop_and_resize" -> {
                if (roi == null || roi.length != 2 * rank) {
                    throw c.fail("tf_crop_and_resize needs roi with %d entries", 2 * rank);
                }
                double s = roi[axis];
                double e = roi[axis + rank];
                yield out > 1 ? s * (in - 1) + o * (e - s) * (in - 1) / (out - 1) : 0.5 * (s + e) * (in - 1);
            }
            default -> throw c.unsupported("Resize(coordinate_transformation_mode=" + coord + ")",
                    "coordinate_transformation_mode '%s' is not supported", coord);
        };
    }

    private static long nearestIndex(NodeCtx c, String mode, double x, double scale) {
        return switch (mode) {
            case "round_prefer_floor" -> x == Math.floor(x) + 0.5 ? (long) Math.floor(x) : Math.round(x);
            case "round_prefer_ceil" -> (long) Math.floor(x + 0.5);
            case "floor" -> (long) Math.floor(x);
            case "ceil" -> (long) Math.ceil(x);
            case "legacy" -> scale < 1 ? (long) Math.ceil(x) : (long) Math.floor(x); // Upsample, Resize-10
            default -> throw c.unsupported("Resize(nearest_mode=" + mode + ")", "nearest_mode '%s' is not supported", mode);
        };
    }

    private static long clamp(long i, int n) {
        return Math.max(0, Math.min(n - 1, i));
    }

    /** Keys' cubic convolution weights for the taps at {@code -1, 0, 1, 2} around a point {@code ratio} past tap 0. */
    private static double[] cubic(double ratio, double a) {
        double[] d = {ratio + 1, ratio, 1 - ratio, 2 - ratio};
        double[] w = new double[4];
        for (int k = 0; k < 4; k++) {
            double t = Math.abs(d[k]);
            w[k] = t <= 1 ? ((a + 2) * t - (a + 3)) * t * t + 1 : ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
        }
        return w;
    }

    /** Per-position weights shaped to broadcast along {@code axis} of a rank-{@code rank} tensor. */
    private static Value along(Graph g, DType t, double[] w, int axis, int rank) {
        int[] d = new int[rank];
        Arrays.fill(d, 1);
        d[axis] = w.length;
        return g.constant(Tensors.of(t, d, w));
    }

    private static Value along(Graph g, boolean[] m, int axis, int rank) {
        int[] d = new int[rank];
        Arrays.fill(d, 1);
        d[axis] = m.length;
        return g.constant(Tensor.of(m, d));
    }
}
