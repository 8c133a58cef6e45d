package dev.rlx.onnx;

import java.util.Arrays;

/**
 * The window attributes shared by ONNX Conv, ConvTranspose and the pools ({@code kernel_shape},
 * {@code strides}, {@code dilations}, {@code pads}, {@code auto_pad}), with defaults filled in and
 * {@code SAME_UPPER}/{@code SAME_LOWER} turned into explicit pads.
 */
record ConvGeometry(int[] kernel, int[] strides, int[] dilations, int[] pads) {

    /**
     * Reads the attributes for {@code spatial} spatial dims of sizes {@code in}; {@code kernel} comes from
     * the weights (convolution) or the {@code kernel_shape} attribute (pooling, when null).
     */
    static ConvGeometry of(NodeCtx c, int[] in, int[] kernel) {
        int sr = in.length;
        if (sr == 0 || (kernel != null && kernel.length != sr)) {
            throw c.fail("needs spatial dims: input has %d, kernel %s", sr,
                    kernel == null ? "from kernel_shape" : Arrays.toString(kernel));
        }
        int[] k = kernel != null ? kernel : req(c, "kernel_shape", sr);
        if (kernel != null && c.hasAttr("kernel_shape") && !Arrays.equals(kernel, req(c, "kernel_shape", sr))) {
            throw c.fail("kernel_shape %s disagrees with the weights' kernel %s",
                    Arrays.toString(c.attrInts("kernel_shape", null)), Arrays.toString(kernel));
        }
        int[] s = ints(c, "strides", sr, 1);
        int[] d = ints(c, "dilations", sr, 1);
        int[] p = ints(c, "pads", 2 * sr, 0);
        for (int i = 0; i < sr; i++) {
            if (k[i] <= 0 || s[i] <= 0 || d[i] <= 0) {
                throw c.fail("kernel %s, strides %s and dilations %s must be positive", Arrays.toString(k),
                        Arrays.toString(s), Arrays.toString(d));
            }
        }
        String auto = c.attrString("auto_pad", "NOTSET");
        switch (auto) {
            case "NOTSET" -> { }
            case "VALID" -> p = new int[2 * sr];
            case "SAME_UPPER", "SAME_LOWER" -> {
                p = new int[2 * sr];
                for (int i = 0; i < sr; i++) {
                    long out = (in[i] + (long) s[i] - 1) / s[i];
                    long total = Math.max(0, (out - 1) * s[i] + (long) (k[i] - 1) * d[i] + 1 - in[i]);
                    if (total > Integer.MAX_VALUE / 2) {
                        throw c.fail("%s padding of %d for spatial dim %d is out of range", auto, total, i);
                    }
                    long small = total / 2;
                    p[i] = (int) (auto.equals("SAME_UPPER") ? small : total - small);
                    p[i + sr] = (int) (total - p[i]);
                }
            }
            default -> throw c.fail("auto_pad '%s' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID", auto);
        }
        return new ConvGeometry(k, s, d, p);
    }

    private static int[] req(NodeCtx c, String name, int n) {
        int[] v = ints(c, name, n, -1);
        if (!c.hasAttr(name)) {
            throw c.fail("needs the %s attribute", name);
        }
        return v;
    }

    /** INTS attribute {@code name} with {@code n} entries in {@code [0, 2^29]}, or {@code n} copies of {@code def}. */
    static int[] ints(NodeCtx c, String name, int n, int def) {
        long[] v = c.attrInts(name, null);
        int[] out = new int[n];
        if (v == null) {
            Arrays.fill(out, def);
            return out;
        }
        if (v.length != n) {
            throw c.fail("%s %s must have %d entries", name, Arrays.toString(v), n);
        }
        for (int i = 0; i < n; i++) {
            if (v[i] < 0 || v[i] > Integer.MAX_VALUE / 4) {
                throw c.fail("%s %s has an entry out of range", name, Arrays.toString(v));
            }
            out[i] = (int) v[i];
        }
        return out;
    }
}
