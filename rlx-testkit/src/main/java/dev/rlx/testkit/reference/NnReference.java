package dev.rlx.testkit.reference;

import dev.rlx.ir.Op;
import java.util.List;

/**
 * Float64 references for the attention, rope, convolution and pooling kernels, written as plain loops
 * straight from the op definitions (never sharing code with the kernels). Attention and rope work on the
 * canonical {@code [B, S, H, D]} layout; tests move data to other layouts with {@link #swapSeqHeads}.
 */
public final class NnReference {
    private NnReference() {}

    // ---------------------------------------------------------------- attention and rope

    /**
     * {@code softmax(mask(softcap(scale q.k))) v} per head for q {@code [B, Sq, H, D]} and k, v
     * {@code [B, Sk, Hkv, D]}. {@code mask} (may be null) broadcasts to {@code [B, H, Sq, Sk]}: kept where
     * non-zero when {@code keepMask}, else added. A row with no visible key is zeros.
     */
    public static Ref attention(Ref q, Ref k, Ref v, Ref mask, boolean keepMask, Op.Attention spec) {
        int b = q.dim(0);
        int sq = q.dim(1);
        int h = q.dim(2);
        int d = q.dim(3);
        int sk = k.dim(1);
        int group = h / k.dim(2);
        Ref out = Ref.zeros(b, sq, h, d);
        double[] s = new double[sk];
        boolean[] visible = new boolean[sk];
        for (int bi = 0; bi < b; bi++) {
            for (int hi = 0; hi < h; hi++) {
                int kh = hi / group;
                for (int i = 0; i < sq; i++) {
                    double max = Double.NEGATIVE_INFINITY;
                    for (int j = 0; j < sk; j++) {
                        int limit = i + sk - sq; // the causal limit: the newest key query i may see
                        visible[j] = switch (spec.mask()) {
                            case NONE -> true;
                            case CAUSAL -> j <= limit;
                            case SLIDING_WINDOW -> j <= limit && j > limit - spec.window();
                        };
                        double dot = 0;
                        int qo = head(q, bi, i, hi);
                        int ko = head(k, bi, j, kh);
                        for (int x = 0; x < d; x++) {
                            dot += q.data()[qo + x] * k.data()[ko + x];
                        }
                        double sc = spec.scale() * dot;
                        if (spec.softcap() > 0) {
                            sc = spec.softcap() * Math.tanh(sc / spec.softcap());
                        }
                        if (mask != null) {
                            double m = mask.atBroadcast(new int[] {bi, hi, i, j});
                            if (keepMask) {
                                visible[j] &= m != 0;
                            } else {
                                sc += m;
                            }
                        }
                        s[j] = sc;
                        if (visible[j] && sc > max) {
                            max = sc;
                        }
                    }
                    if (max == Double.NEGATIVE_INFINITY) {
                        continue; // fully masked: zeros
                    }
                    double sum = 0;
                    for (int j = 0; j < sk; j++) {
                        s[j] = visible[j] ? Math.exp(s[j] - max) : 0;
                        sum += s[j];
                    }
                    int oo = head(out, bi, i, hi);
                    for (int j = 0; j < sk; j++) {
                        int vo = head(v, bi, j, kh);
                        for (int x = 0; x < d; x++) {
                            out.data()[oo + x] += s[j] / sum * v.data()[vo + x];
                        }
                    }
                }
            }
        }
        return out;
    }

    /** Flat offset of head vector {@code [b, s, h, :]} of a {@code [B, S, H, D]} tensor (no varargs: hot in big tests). */
    private static int head(Ref t, int b, int s, int h) {
        return ((b * t.dim(1) + s) * t.dim(2) + h) * t.dim(3);
    }

    /**
     * Rotary embedding of x {@code [B, S, H, D]} with tables {@code [S, r/2]} or {@code [B, S, r/2]}: pair i is
     * (2i, 2i+1) when interleaved, else (i, i + r/2); dims from r on are unchanged.
     */
    public static Ref rope(Ref x, Ref cos, Ref sin, Op.Rope spec) {
        Ref out = new Ref(x.dims().clone(), x.data().clone());
        int half = spec.rotaryDim() / 2;
        for (int b = 0; b < x.dim(0); b++) {
            for (int s = 0; s < x.dim(1); s++) {
                for (int h = 0; h < x.dim(2); h++) {
                    for (int i = 0; i < half; i++) {
                        int ia = spec.interleaved() ? 2 * i : i;
                        int ib = spec.interleaved() ? 2 * i + 1 : i + half;
                        double c = cos.rank() == 3 ? cos.at(b, s, i) : cos.at(s, i);
                        double sn = sin.rank() == 3 ? sin.at(b, s, i) : sin.at(s, i);
                        double a = x.at(b, s, h, ia);
                        double bb = x.at(b, s, h, ib);
                        out.set(a * c - bb * sn, b, s, h, ia);
                        out.set(bb * c + a * sn, b, s, h, ib);
                    }
                }
            }
        }
        return out;
    }

    /** {@code [B, S, H, D]} to {@code [B, H, S, D]} and back (the permutation is its own inverse). */
    public static Ref swapSeqHeads(Ref x) {
        Ref out = Ref.zeros(x.dim(0), x.dim(2), x.dim(1), x.dim(3));
        for (int b = 0; b < x.dim(0); b++) {
            for (int s = 0; s < x.dim(1); s++) {
                for (int h = 0; h < x.dim(2); h++) {
                    for (int d = 0; d < x.dim(3); d++) {
                        out.set(x.at(b, s, h, d), b, h, s, d);
                    }
                }
            }
        }
        return out;
    }

    // ---------------------------------------------------------------- convolution and pooling

    /**
     * ONNX Conv: cross-correlation of x {@code [N, Cin, *in]} with w {@code [Cout, Cin/g, *k]} plus bias
     * (may be null), any number of spatial dims.
     */
    public static Ref conv(Ref x, Ref w, Ref bias, Op.Conv spec) {
        int sr = x.rank() - 2;
        int groups = spec.groups();
        int cout = w.dim(0);
        int cinG = w.dim(1);
        int coutG = cout / groups;
        int[] kernel = spatial(w);
        int[] outDims = new int[sr + 2];
        outDims[0] = x.dim(0);
        outDims[1] = cout;
        for (int i = 0; i < sr; i++) {
            int span = spec.dilations().get(i) * (kernel[i] - 1) + 1;
            outDims[i + 2] = (x.dim(i + 2) + spec.pads().get(i) + spec.pads().get(i + sr) - span) / spec.strides().get(i) + 1;
        }
        Ref out = Ref.zeros(outDims);
        int[][] tapIndex = tapIndices(kernel);
        int[] xi = new int[sr + 2];
        for (int o = 0; o < out.size(); o++) {
            int[] oi = out.unravel(o);
            int n = oi[0];
            int oc = oi[1];
            double acc = bias == null ? 0 : bias.at(oc);
            for (int icg = 0; icg < cinG; icg++) {
                int ic = (oc / coutG) * cinG + icg;
                for (int[] ki : tapIndex) {
                    xi[0] = n;
                    xi[1] = ic;
                    boolean inside = true;
                    for (int i = 0; i < sr; i++) {
                        xi[i + 2] = oi[i + 2] * spec.strides().get(i) - spec.pads().get(i) + ki[i] * spec.dilations().get(i);
                        inside &= xi[i + 2] >= 0 && xi[i + 2] < x.dim(i + 2);
                    }
                    if (inside) {
                        acc += x.at(xi) * w.at(concat(oc, icg, ki));
                    }
                }
            }
            out.data()[o] = acc;
        }
        return out;
    }

    /**
     * ONNX ConvTranspose as a scatter: every x element adds {@code x * w[ic, ocg, k]} at output position
     * {@code i * stride - padBegin + k * dilation} (dropped outside the output). w is {@code [Cin, Cout/g, *k]}.
     */
    public static Ref convTranspose(Ref x, Ref w, Ref bias, Op.ConvTranspose spec) {
        int sr = x.rank() - 2;
        int groups = spec.groups();
        int cin = x.dim(1);
        int cinG = cin / groups;
        int coutG = w.dim(1);
        int[] kernel = spatial(w);
        int[] outDims = new int[sr + 2];
        outDims[0] = x.dim(0);
        outDims[1] = coutG * groups;
        for (int i = 0; i < sr; i++) {
            outDims[i + 2] = (x.dim(i + 2) - 1) * spec.strides().get(i) - spec.pads().get(i) - spec.pads().get(i + sr)
                    + spec.dilations().get(i) * (kernel[i] - 1) + spec.outputPadding().get(i) + 1;
        }
        Ref out = Ref.zeros(outDims);
        int taps = volume(kernel);
        for (int xf = 0; xf < x.size(); xf++) {
            int[] xi = x.unravel(xf);
            int ic = xi[1];
            int g = ic / cinG;
            for (int ocg = 0; ocg < coutG; ocg++) {
                for (int t = 0; t < taps; t++) {
                    int[] ki = unravel(kernel, t);
                    int[] oi = new int[sr + 2];
                    oi[0] = xi[0];
                    oi[1] = g * coutG + ocg;
                    boolean inside = true;
                    for (int i = 0; i < sr; i++) {
                        oi[i + 2] = xi[i + 2] * spec.strides().get(i) - spec.pads().get(i) + ki[i] * spec.dilations().get(i);
                        inside &= oi[i + 2] >= 0 && oi[i + 2] < outDims[i + 2];
                    }
                    if (inside) {
                        int f = out.flat(oi);
                        out.data()[f] += x.data()[xf] * w.at(concat(ic, ocg, ki));
                    }
                }
            }
        }
        if (bias != null) {
            for (int f = 0; f < out.size(); f++) {
                out.data()[f] += bias.at(out.unravel(f)[1]);
            }
        }
        return out;
    }

    /**
     * Max or average pooling over x {@code [N, C, *in]}. Cells outside the input are skipped; AVG divides by
     * the cells inside the input, or with countIncludePad by the cells inside the padded input
     * ({@code [-padBegin, in + padEnd)}). ceilMode rounds the output size up, dropping a last window that
     * would start in the end padding.
     */
    public static Ref pool(Ref x, Op.Pool spec) {
        int sr = x.rank() - 2;
        List<Integer> st = spec.strides();
        List<Integer> p = spec.pads();
        List<Integer> dl = spec.dilations();
        int[] kernel = spec.kernel().stream().mapToInt(Integer::intValue).toArray();
        int[] outDims = x.dims().clone();
        for (int i = 0; i < sr; i++) {
            int span = dl.get(i) * (kernel[i] - 1) + 1;
            int room = x.dim(i + 2) + p.get(i) + p.get(i + sr) - span;
            int o = spec.ceilMode() ? (room + st.get(i) - 1) / st.get(i) + 1 : room / st.get(i) + 1;
            if (spec.ceilMode() && (o - 1) * st.get(i) >= x.dim(i + 2) + p.get(i)) {
                o--;
            }
            outDims[i + 2] = o;
        }
        Ref out = Ref.zeros(outDims);
        int taps = volume(kernel);
        for (int o = 0; o < out.size(); o++) {
            int[] oi = out.unravel(o);
            double max = Double.NEGATIVE_INFINITY;
            double sum = 0;
            int inside = 0;
            int insidePadded = 0;
            for (int t = 0; t < taps; t++) {
                int[] ki = unravel(kernel, t);
                int[] xi = oi.clone();
                boolean in = true;
                boolean inPadded = true;
                for (int i = 0; i < sr; i++) {
                    int pos = oi[i + 2] * st.get(i) - p.get(i) + ki[i] * dl.get(i);
                    xi[i + 2] = pos;
                    in &= pos >= 0 && pos < x.dim(i + 2);
                    inPadded &= pos >= -p.get(i) && pos < x.dim(i + 2) + p.get(i + sr);
                }
                if (inPadded) {
                    insidePadded++;
                }
                if (in) {
                    inside++;
                    sum += x.at(xi);
                    max = Math.max(max, x.at(xi));
                }
            }
            out.data()[o] = spec.op() == Op.Pool.Kind.MAX ? max
                    : sum / (spec.countIncludePad() ? insidePadded : inside);
        }
        return out;
    }

    private static int[] spatial(Ref w) {
        int[] k = new int[w.rank() - 2];
        for (int i = 0; i < k.length; i++) {
            k[i] = w.dim(i + 2);
        }
        return k;
    }

    /** The multi-index of every kernel tap, in row-major order. */
    private static int[][] tapIndices(int[] kernel) {
        int[][] t = new int[volume(kernel)][];
        for (int i = 0; i < t.length; i++) {
            t[i] = unravel(kernel, i);
        }
        return t;
    }

    private static int volume(int[] dims) {
        int v = 1;
        for (int d : dims) {
            v *= d;
        }
        return v;
    }

    /** Row-major multi-index of {@code flat} within {@code dims}. */
    private static int[] unravel(int[] dims, int flat) {
        int[] idx = new int[dims.length];
        for (int i = dims.length - 1; i >= 0; i--) {
            idx[i] = flat % dims[i];
            flat /= dims[i];
        }
        return idx;
    }

    private static int[] concat(int a, int b, int[] rest) {
        int[] r = new int[rest.length + 2];
        r[0] = a;
        r[1] = b;
        System.arraycopy(rest, 0, r, 2, rest.length);
        return r;
    }
}
