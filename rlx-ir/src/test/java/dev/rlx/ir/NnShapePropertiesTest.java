package dev.rlx.ir;

import static dev.rlx.ir.Check.f32;
import static dev.rlx.ir.Check.in;
import static dev.rlx.ir.Check.rejects;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rlx.ir.Op.Attention;
import dev.rlx.ir.Op.Conv;
import dev.rlx.ir.Op.ConvTranspose;
import dev.rlx.ir.Op.Pool;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Convolution, pooling, attention and norm shapes against brute-force references that count windows or
 * written cells one by one, rather than evaluating the closed-form size formula the code uses.
 */
class NnShapePropertiesTest {

    /** Windows of span {@code d*(k-1)+1} starting at {@code -pb + j*s} that fit inside {@code [-pb, in+pe)}. */
    static int countConvWindows(int in, int k, int s, int d, int pb, int pe) {
        int count = 0;
        for (int start = -pb; start + d * (k - 1) <= in + pe - 1; start += s) {
            count++;
        }
        return count;
    }

    @Property(tries = 500)
    void conv1d_outputSize_matchesWindowCount(@ForAll @IntRange(min = 1, max = 12) int in,
                                              @ForAll @IntRange(min = 1, max = 5) int k,
                                              @ForAll @IntRange(min = 1, max = 3) int stride,
                                              @ForAll @IntRange(min = 1, max = 3) int dilation,
                                              @ForAll @IntRange(min = 0, max = 3) int padBegin,
                                              @ForAll @IntRange(min = 0, max = 3) int padEnd,
                                              @ForAll @IntRange(min = 1, max = 3) int groups) {
        int expected = countConvWindows(in, k, stride, dilation, padBegin, padEnd);
        Graph g = new Graph("c");
        Value x = in(g, f32(2, 2 * groups, in));
        Value w = in(g, f32(3 * groups, 2, k));
        Conv spec = Conv.of(1).withStrides(stride).withDilations(dilation).withPads(padBegin, padEnd).withGroups(groups);
        if (expected == 0) {
            rejects(g, "conv", () -> g.conv(x, w, null, spec), "f32[2," + 2 * groups + "," + in + "]");
        } else {
            assertEquals(f32(2, 3 * groups, expected), g.conv(x, w, in(g, f32(3 * groups)), spec).shape());
        }
    }

    @Property(tries = 300)
    void conv2d_eachSpatialDimIndependent(@ForAll @IntRange(min = 1, max = 9) int h, @ForAll @IntRange(min = 1, max = 9) int wd,
                                          @ForAll @IntRange(min = 1, max = 4) int kh, @ForAll @IntRange(min = 1, max = 4) int kw,
                                          @ForAll @IntRange(min = 1, max = 3) int sh, @ForAll @IntRange(min = 1, max = 3) int sw,
                                          @ForAll @IntRange(min = 0, max = 2) int ph, @ForAll @IntRange(min = 0, max = 2) int pw) {
        int oh = countConvWindows(h, kh, sh, 1, ph, ph);
        int ow = countConvWindows(wd, kw, sw, 1, pw, pw);
        Graph g = new Graph("c");
        Value x = in(g, f32(1, 3, h, wd));
        Value w = in(g, f32(4, 3, kh, kw));
        Conv spec = Conv.of(2).withStrides(sh, sw).withPads(ph, pw);
        if (oh == 0 || ow == 0) {
            rejects(g, "conv", () -> g.conv(x, w, null, spec), "window", "f32[1,3," + h + "," + wd + "]");
        } else {
            assertEquals(f32(1, 4, oh, ow), g.conv(x, w, null, spec).shape());
        }
    }

    @Property(tries = 500)
    void pool_outputSize_matchesWindowCount(@ForAll @IntRange(min = 1, max = 12) int in,
                                            @ForAll @IntRange(min = 1, max = 4) int k,
                                            @ForAll @IntRange(min = 1, max = 4) int stride,
                                            @ForAll @IntRange(min = 1, max = 2) int dilation,
                                            @ForAll @IntRange(min = 0, max = 3) int padBegin,
                                            @ForAll @IntRange(min = 0, max = 3) int padEnd,
                                            @ForAll boolean ceil) {
        int span = dilation * (k - 1) + 1;
        if (padBegin >= span || padEnd >= span) {
            rejects("pool", () -> Pool.of(Pool.Kind.MAX, k).withDilations(dilation).withPads(padBegin, padEnd), "pads");
            return;
        }
        // Floor mode: windows that fit in the padded input. Ceil mode (PyTorch): also a last partial window
        // overrunning the end padding, provided it starts inside the input or the begin padding.
        int expected = 0;
        for (int start = -padBegin; start < in + padEnd; start += stride) {
            boolean fits = start + span <= in + padEnd;
            boolean partialOk = ceil && start < in && start - stride + span < in + padEnd;
            if (fits || partialOk) {
                expected++;
            }
        }
        Pool spec = Pool.of(Pool.Kind.AVG, k).withStrides(stride).withDilations(dilation).withPads(padBegin, padEnd)
                .withCeilMode(ceil);
        Graph g = new Graph("p");
        Value x = in(g, f32(1, 2, in));
        if (expected == 0) {
            rejects(g, "avg_pool", () -> g.pool(x, spec), "f32[1,2," + in + "]");
        } else {
            assertEquals(f32(1, 2, expected), g.pool(x, spec).shape());
        }
    }

    @Property(tries = 400)
    void convTranspose_outputSize_isTheWrittenExtent(@ForAll @IntRange(min = 1, max = 8) int in,
                                                     @ForAll @IntRange(min = 1, max = 4) int k,
                                                     @ForAll @IntRange(min = 1, max = 3) int stride,
                                                     @ForAll @IntRange(min = 1, max = 3) int dilation,
                                                     @ForAll @IntRange(min = 0, max = 3) int padBegin,
                                                     @ForAll @IntRange(min = 0, max = 3) int padEnd,
                                                     @ForAll @IntRange(min = 0, max = 2) int outputPadding) {
        if (outputPadding >= stride && outputPadding >= dilation) {
            rejects("conv_transpose", () -> ConvTranspose.of(1).withStrides(stride).withDilations(dilation)
                    .withOutputPadding(outputPadding), "outputPadding");
            return;
        }
        // Input cell i scatters into output cells i*stride + t*dilation (t < k), before cropping the pads.
        int last = 0;
        for (int i = 0; i < in; i++) {
            for (int t = 0; t < k; t++) {
                last = Math.max(last, i * stride + t * dilation);
            }
        }
        int expected = last + 1 - padBegin - padEnd + outputPadding;
        ConvTranspose spec = ConvTranspose.of(1).withStrides(stride).withDilations(dilation).withPads(padBegin, padEnd)
                .withOutputPadding(outputPadding);
        Graph g = new Graph("t");
        Value x = in(g, f32(1, 3, in));
        Value w = in(g, f32(3, 2, k));
        if (expected < 0) {
            rejects(g, "conv_transpose", () -> g.convTranspose(x, w, null, spec), "f32[1,3," + in + "]");
        } else {
            assertEquals(f32(1, 2, expected), g.convTranspose(x, w, null, spec).shape());
        }
    }

    @Property(tries = 300)
    void attention_gqa_outputIsQueryShape(@ForAll @IntRange(min = 1, max = 3) int batch,
                                          @ForAll @IntRange(min = 1, max = 5) int sq,
                                          @ForAll @IntRange(min = 1, max = 5) int sk,
                                          @ForAll @IntRange(min = 1, max = 3) int kvHeads,
                                          @ForAll @IntRange(min = 1, max = 3) int group,
                                          @ForAll @IntRange(min = 1, max = 4) int headDim,
                                          @ForAll boolean bhsd, @ForAll boolean rank3, @ForAll boolean boolMask) {
        int heads = kvHeads * group;
        Attention spec = Attention.of(heads, kvHeads, headDim).withLayout(bhsd ? HeadLayout.BHSD : HeadLayout.BSHD);
        Shape q;
        Shape k;
        if (bhsd) {
            q = f32(batch, heads, sq, headDim);
            k = f32(batch, kvHeads, sk, headDim);
        } else if (rank3) {
            q = f32(batch, sq, heads * headDim);
            k = f32(batch, sk, kvHeads * headDim);
        } else {
            q = f32(batch, sq, heads, headDim);
            k = f32(batch, sk, kvHeads, headDim);
        }
        Graph g = new Graph("a");
        Value vq = in(g, q);
        Value vk = in(g, k);
        Value mask = in(g, Shape.of(boolMask ? DType.BOOL : DType.F32, 1, heads, sq, sk));
        assertEquals(q, g.attention(vq, vk, vk, mask, spec).shape());
        if (group > 1) { // q with kv heads only: numHeads no longer matches
            Attention wrong = Attention.of(kvHeads, kvHeads, headDim).withLayout(spec.layout());
            rejects(g, "attention", () -> g.attention(vq, vk, vk, wrong), q.toString());
        }
    }

    @Property(tries = 200)
    void layerNorm_gammaIsTheSuffixFromAxis(@ForAll @IntRange(min = 1, max = 4) int rank,
                                            @ForAll @IntRange(min = 0, max = 3) int axisSeed, @ForAll boolean negative) {
        int axis = axisSeed % rank;
        int[] dims = new int[rank];
        List<Integer> suffix = new ArrayList<>();
        for (int i = 0; i < rank; i++) {
            dims[i] = i + 2;
            if (i >= axis) {
                suffix.add(i + 2);
            }
        }
        Graph g = new Graph("n");
        Value x = in(g, Shape.of(DType.F16, dims));
        Value gamma = in(g, Shape.of(DType.F16, suffix));
        int given = negative ? axis - rank : axis;
        assertEquals(x.shape(), g.layerNorm(x, gamma, gamma, given, 1e-5f).shape());
        assertEquals(x.shape(), g.rmsNorm(x, gamma, null, given, 1e-5f).shape());
        if (axis > 0) {
            Value whole = in(g, x.shape());
            rejects(g, "layer_norm", () -> g.layerNorm(x, whole, null, given, 1e-5f), "gamma", x.shape().toString());
        }
    }
}
