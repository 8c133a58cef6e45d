package dev.rlx.ir;

import static dev.rlx.ir.Check.f32;
import static dev.rlx.ir.Check.in;
import static dev.rlx.ir.Check.out;
import static dev.rlx.ir.Check.rejects;
import static dev.rlx.ir.Check.s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.rlx.ir.Op.Attention;
import dev.rlx.ir.Op.Conv;
import dev.rlx.ir.Op.ConvTranspose;
import dev.rlx.ir.Op.Pool;
import dev.rlx.ir.Op.Rope;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Normalisation, attention, rope, convolution and pooling shape rules. */
class NnShapeTest {

    // ---------------------------------------------------------------- norms

    @Test
    void layerNorm_gammaBetaHaveTheDimsFromAxis() {
        Graph g = new Graph("n");
        Value x = in(g, f32(2, 3, 4));
        assertEquals(f32(2, 3, 4), g.layerNorm(x, in(g, f32(3, 4)), in(g, f32(3, 4)), 1, 1e-5f).shape());
        assertEquals(f32(2, 3, 4), g.layerNorm(x, in(g, f32(4)), null, -1, 0f).shape());
        assertEquals(new Op.LayerNorm(0, 1e-5f), g.layerNorm(x, in(g, f32(2, 3, 4)), null, -3, 1e-5f).node().op());
        assertEquals(f32(2, 3, 4), g.rmsNorm(x, in(g, f32(4)), 1e-6f).shape());
        assertEquals(new Op.RmsNorm(2, 1e-6f), g.rmsNorm(x, in(g, f32(4)), 1e-6f).node().op());
        assertEquals(f32(2, 3, 4), g.rmsNorm(x, in(g, f32(3, 4)), in(g, f32(3, 4)), -2, 1e-6f).shape());
    }

    @Test
    void layerNorm_wrongGammaOrBeta_rejected() {
        Graph g = new Graph("n");
        Value x = in(g, f32(2, 3, 4));
        Value g43 = in(g, f32(4, 3));
        Value g34 = in(g, f32(3, 4));
        Value h34 = in(g, DType.F16, 3, 4);
        rejects(g, "layer_norm", () -> g.layerNorm(x, g43, null, 1, 1e-5f), "gamma", "f32[3,4]", "f32[4,3]");
        rejects(g, "layer_norm", () -> g.layerNorm(x, g34, g43, 1, 1e-5f), "beta", "f32[3,4]", "f32[4,3]");
        rejects(g, "layer_norm", () -> g.layerNorm(x, h34, null, 1, 1e-5f), "gamma", "f16[3,4]");
        rejects(g, "rms_norm", () -> g.rmsNorm(x, g34, 1e-5f), "gamma", "f32[4]", "f32[3,4]");
        Value i = in(g, DType.I32, 2, 4);
        Value gi = in(g, DType.I32, 4);
        rejects(g, "layer_norm", () -> g.layerNorm(i, gi, null, -1, 1e-5f), "i32[2,4]", "float");
        rejects(g, "layer_norm", () -> g.layerNorm(x, g34, null, 3, 1e-5f), "axis 3", "f32[2,3,4]");
    }

    @ParameterizedTest
    @ValueSource(floats = {-1e-5f, Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY})
    void norms_badEps_rejected(float eps) {
        rejects("layer_norm", () -> new Op.LayerNorm(0, eps), "eps");
        rejects("rms_norm", () -> new Op.RmsNorm(0, eps), "eps");
        rejects("group_norm", () -> new Op.GroupNorm(1, eps), "eps");
    }

    @Test
    void groupNorm_rules() {
        Graph g = new Graph("n");
        Value x = in(g, f32(2, 6, 4, 4));
        Value c6 = in(g, f32(6));
        assertEquals(f32(2, 6, 4, 4), g.groupNorm(x, c6, c6, 3, 1e-5f).shape());
        assertEquals(f32(2, 6), g.groupNorm(in(g, f32(2, 6)), c6, c6, 6, 1e-5f).shape());
        rejects(g, "group_norm", () -> g.groupNorm(x, c6, c6, 4, 1e-5f), "f32[2,6,4,4]", "numGroups 4");
        Value c3 = in(g, f32(3));
        rejects(g, "group_norm", () -> g.groupNorm(x, c3, c6, 3, 1e-5f), "gamma", "f32[6]", "f32[3]");
        rejects(g, "group_norm", () -> g.groupNorm(x, c6, c3, 3, 1e-5f), "beta", "f32[6]", "f32[3]");
        Value r1 = in(g, f32(6));
        rejects(g, "group_norm", () -> g.groupNorm(r1, c6, c6, 1, 1e-5f), "f32[6]", "[N, C, ...]");
        rejects("group_norm", () -> new Op.GroupNorm(0, 1e-5f), "numGroups");
    }

    // ---------------------------------------------------------------- attention

    private static final Attention GQA = Attention.of(8, 2, 4);

    @Test
    void attention_bshdRank3_rank4_andBhsd() {
        Graph g = new Graph("a");
        Value q3 = in(g, f32(2, 5, 32));
        Value k3 = in(g, f32(2, 7, 8));
        assertEquals(f32(2, 5, 32), g.attention(q3, k3, k3, GQA).shape());
        Value q4 = in(g, f32(2, 5, 8, 4));
        Value k4 = in(g, f32(2, 7, 2, 4));
        assertEquals(f32(2, 5, 8, 4), g.attention(q4, k4, k4, GQA).shape());
        Value qh = in(g, f32(2, 8, 5, 4));
        Value kh = in(g, f32(2, 2, 7, 4));
        assertEquals(f32(2, 8, 5, 4), g.attention(qh, kh, kh, GQA.withLayout(HeadLayout.BHSD)).shape());
        rejects(g, "attention", () -> g.attention(q3, k3, k3, GQA.withLayout(HeadLayout.BHSD)), "f32[2,5,32]", "BHSD");
        Value q5 = in(g, f32(1, 2, 5, 8, 4));
        rejects(g, "attention", () -> g.attention(q5, k4, k4, GQA), "f32[1,2,5,8,4]");
    }

    @Test
    void attention_defaults() {
        assertEquals(0.5f, GQA.scale(), "scale defaults to 1/sqrt(headDim) = 1/sqrt(4)");
        assertEquals(Attention.Mask.NONE, GQA.mask());
        assertEquals(HeadLayout.BSHD, GQA.layout());
        assertEquals(0f, GQA.softcap());
        assertEquals(Attention.Mask.CAUSAL, GQA.causal().mask());
        assertEquals(3, GQA.slidingWindow(3).window());
    }

    @Test
    void attention_headCounts() {
        Graph g = new Graph("a");
        Value q = in(g, f32(2, 5, 32));
        Value k = in(g, f32(2, 7, 8));
        rejects(g, "attention", () -> g.attention(q, k, k, Attention.of(4, 2, 4)), "f32[2,5,32]", "8 heads", "numHeads is 4");
        Value k3heads = in(g, f32(2, 7, 12));
        rejects(g, "attention", () -> g.attention(q, k3heads, k3heads, GQA), "f32[2,7,12]", "numKvHeads=2");
        rejects("attention", () -> Attention.of(6, 4, 4), "numHeads 6", "numKvHeads 4");
        rejects("attention", () -> Attention.of(0, 1, 4), "numHeads");
        rejects("attention", () -> Attention.of(2, 2, 0), "headDim");
        Value q30 = in(g, f32(2, 5, 30));
        rejects(g, "attention", () -> g.attention(q30, k, k, GQA), "f32[2,5,30]", "headDim 4");
        Value q4 = in(g, f32(2, 5, 8, 3));
        Value k4 = in(g, f32(2, 7, 2, 3));
        rejects(g, "attention", () -> g.attention(q4, k4, k4, GQA), "f32[2,5,8,3]", "headDim 4");
    }

    @Test
    void attention_keyLengthsBatchAndDtypes() {
        Graph g = new Graph("a");
        Value q = in(g, f32(2, 5, 32));
        Value k = in(g, f32(2, 7, 8));
        Value v6 = in(g, f32(2, 6, 8));
        rejects(g, "attention", () -> g.attention(q, k, v6, GQA), "f32[2,7,8]", "f32[2,6,8]", "key lengths");
        Value k3 = in(g, f32(3, 7, 8));
        rejects(g, "attention", () -> g.attention(q, k3, k3, GQA), "f32[2,5,32]", "f32[3,7,8]", "batch");
        Value kh = in(g, DType.F16, 2, 7, 8);
        rejects(g, "attention", () -> g.attention(q, kh, kh, GQA), "f32[2,5,32]", "f16[2,7,8]");
        Value qi = in(g, DType.I32, 2, 5, 32);
        Value ki = in(g, DType.I32, 2, 7, 8);
        rejects(g, "attention", () -> g.attention(qi, ki, ki, GQA), "i32[2,5,32]", "float");
    }

    @Test
    void attention_mask() {
        Graph g = new Graph("a");
        Value q = in(g, f32(2, 5, 32));
        Value k = in(g, f32(2, 7, 8));
        for (Shape ok : List.of(s(DType.BOOL, 1, 1, 5, 7), f32(5, 7), f32(2, 8, 5, 7), f32(2, 1, 1, 7),
                s(DType.BOOL, 7), f32())) {
            Value m = in(g, ok);
            assertEquals(f32(2, 5, 32), g.attention(q, k, k, m, GQA).shape(), ok.toString());
        }
        assertEquals(OpKind.ATTENTION, g.attention(q, k, k, null, GQA).node().kind());
        Value mi = in(g, DType.I32, 5, 7);
        rejects(g, "attention", () -> g.attention(q, k, k, mi, GQA), "i32[5,7]", "bool or f32");
        Value mh = in(g, DType.F16, 5, 7);
        rejects(g, "attention", () -> g.attention(q, k, k, mh, GQA), "f16[5,7]");
        Value m37 = in(g, f32(3, 7));
        rejects(g, "attention", () -> g.attention(q, k, k, m37, GQA), "f32[3,7]", "[2, 8, 5, 7]");
        Value m5 = in(g, f32(1, 2, 8, 5, 7));
        rejects(g, "attention", () -> g.attention(q, k, k, m5, GQA), "f32[1,2,8,5,7]");
        Value mHeads = in(g, f32(2, 2, 5, 7)); // kv heads, not query heads
        rejects(g, "attention", () -> g.attention(q, k, k, mHeads, GQA), "f32[2,2,5,7]");
    }

    @Test
    void attention_windowOnlyWithSlidingWindow() {
        assertEquals(Attention.Mask.SLIDING_WINDOW, GQA.slidingWindow(4).mask());
        rejects("attention", () -> GQA.slidingWindow(0), "window");
        rejects("attention", () -> GQA.slidingWindow(-2), "window");
        rejects("attention", () -> new Attention(8, 2, 4, HeadLayout.BSHD, Attention.Mask.NONE, 3, 0.5f, 0f),
                "window 3", "SLIDING_WINDOW");
        rejects("attention", () -> new Attention(8, 2, 4, HeadLayout.BSHD, Attention.Mask.CAUSAL, 2, 0.5f, 0f),
                "window 2", "SLIDING_WINDOW");
        assertEquals(0, GQA.slidingWindow(4).causal().window(), "switching to causal drops the window");
    }

    @ParameterizedTest
    @ValueSource(floats = {0f, -0.5f, Float.NaN, Float.POSITIVE_INFINITY})
    void attention_badScale_rejected(float scale) {
        rejects("attention", () -> GQA.withScale(scale), "scale");
    }

    @ParameterizedTest
    @ValueSource(floats = {-1f, Float.NaN, Float.POSITIVE_INFINITY})
    void attention_badSoftcap_rejected(float softcap) {
        rejects("attention", () -> GQA.withSoftcap(softcap), "softcap");
    }

    @Test
    void attention_softcapZeroIsOff_positiveAllowed() {
        assertEquals(0f, GQA.withSoftcap(0f).softcap());
        assertEquals(30f, GQA.withSoftcap(30f).softcap());
    }

    // ---------------------------------------------------------------- rope

    @Test
    void rope_cosSinShapes() {
        Graph g = new Graph("r");
        Value x = in(g, f32(2, 5, 24)); // 3 heads of 8
        Value c = in(g, f32(5, 4));
        assertEquals(f32(2, 5, 24), g.rope(x, c, c, 8).shape());
        Value cb = in(g, f32(2, 5, 4));
        assertEquals(f32(2, 5, 24), g.rope(x, cb, cb, 8).shape());
        Value c2 = in(g, f32(5, 2));
        assertEquals(f32(2, 5, 24), g.rope(x, c2, c2, new Rope(8, 4, true, HeadLayout.BSHD)).shape());
        Value xh = in(g, f32(2, 3, 5, 8));
        assertEquals(f32(2, 3, 5, 8), g.rope(xh, c, c, new Rope(8, 8, false, HeadLayout.BHSD)).shape());
    }

    @Test
    void rope_rejections() {
        rejects("rope", () -> new Rope(8, 3, false, HeadLayout.BSHD), "rotaryDim 3", "even");
        rejects("rope", () -> new Rope(8, 10, false, HeadLayout.BSHD), "rotaryDim 10", "headDim 8");
        rejects("rope", () -> new Rope(8, 0, false, HeadLayout.BSHD), "rotaryDim");
        Graph g = new Graph("r");
        Value x = in(g, f32(2, 5, 24));
        Value c = in(g, f32(5, 4));
        Value c58 = in(g, f32(5, 8));
        rejects(g, "rope", () -> g.rope(x, c58, c, 8), "cos", "f32[5,8]");
        Value s44 = in(g, f32(4, 4));
        rejects(g, "rope", () -> g.rope(x, c, s44, 8), "sin", "f32[4,4]");
        Value s354 = in(g, f32(3, 5, 4));
        rejects(g, "rope", () -> g.rope(x, c, s354, 8), "sin", "f32[3,5,4]");
        Value ch = in(g, DType.F16, 5, 4);
        rejects(g, "rope", () -> g.rope(x, ch, ch, 8), "f16[5,4]");
        Value x25 = in(g, f32(2, 5, 25));
        rejects(g, "rope", () -> g.rope(x25, c, c, 8), "f32[2,5,25]");
        Value xi = in(g, DType.I32, 2, 5, 24);
        rejects(g, "rope", () -> g.rope(xi, c, c, 8), "i32[2,5,24]");
    }

    // ---------------------------------------------------------------- conv

    @Test
    void conv2d_outputSizes() {
        Graph g = new Graph("c");
        Value x = in(g, f32(1, 3, 32, 32));
        Value w = in(g, f32(16, 3, 3, 3));
        // floor((32 + 1 + 1 - 1*(3-1) - 1) / s) + 1
        assertEquals(f32(1, 16, 32, 32), g.conv2d(x, w, null, 1, 1, 1, 1).shape()); // 31/1+1
        assertEquals(f32(1, 16, 16, 16), g.conv2d(x, w, null, 2, 1, 1, 1).shape()); // 31/2+1 = 16
        assertEquals(f32(1, 16, 28, 28), g.conv2d(x, w, null, 1, 0, 2, 1).shape()); // span 5: 27+1
        Value b = in(g, f32(16));
        assertEquals(f32(1, 16, 30, 30), g.conv2d(x, w, b, 1, 0, 1, 1).shape());
        // non-square: stride (2,1), pads begins (1,0) ends (0,0): h = (32+1-3)/2+1 = 16, w = 30
        Conv spec = Conv.of(2).withStrides(2, 1).withPads(1, 0, 0, 0);
        assertEquals(f32(1, 16, 16, 30), g.conv(x, w, null, spec).shape());
    }

    @Test
    void conv1d_andGroups() {
        Graph g = new Graph("c");
        Value x = in(g, f32(2, 3, 10));
        Value w = in(g, f32(5, 3, 4));
        assertEquals(f32(2, 5, 7), g.conv(x, w, null, Conv.of(1)).shape());
        assertEquals(f32(2, 5, 3), g.conv(x, w, null, Conv.of(1).withStrides(3)).shape()); // 6/3+1
        assertEquals(f32(2, 5, 9), g.conv(x, w, null, Conv.of(1).withPads(2, 0)).shape()); // 8/1+1
        Value x4 = in(g, f32(1, 4, 8, 8));
        assertEquals(f32(1, 6, 6, 6), g.conv2d(x4, in(g, f32(6, 2, 3, 3)), null, 1, 0, 1, 2).shape());
        assertEquals(f32(1, 4, 6, 6), g.conv2d(x4, in(g, f32(4, 1, 3, 3)), null, 1, 0, 1, 4).shape(), "depthwise");
    }

    @Test
    void conv_channelAndBiasMismatch_rejected() {
        Graph g = new Graph("c");
        Value x = in(g, f32(1, 4, 8, 8));
        Value w3 = in(g, f32(6, 3, 3, 3));
        rejects(g, "conv", () -> g.conv2d(x, w3, null, 1, 0, 1, 1), "f32[1,4,8,8]", "f32[6,3,3,3]", "channels");
        Value w5 = in(g, f32(5, 2, 3, 3));
        rejects(g, "conv", () -> g.conv2d(x, w5, null, 1, 0, 1, 2), "f32[5,2,3,3]", "groups=2");
        Value w1 = in(g, f32(6, 1, 3, 3));
        rejects(g, "conv", () -> g.conv2d(x, w1, null, 1, 0, 1, 3), "f32[1,4,8,8]", "groups=3");
        Value w = in(g, f32(6, 4, 3, 3));
        Value b5 = in(g, f32(5));
        rejects(g, "conv", () -> g.conv2d(x, w, b5, 1, 0, 1, 1), "bias", "f32[6]", "f32[5]");
        Value bh = in(g, DType.F16, 6);
        rejects(g, "conv", () -> g.conv2d(x, w, bh, 1, 0, 1, 1), "bias", "f16[6]");
        Value wh = in(g, DType.F16, 6, 4, 3, 3);
        rejects(g, "conv", () -> g.conv2d(x, wh, null, 1, 0, 1, 1), "f32[1,4,8,8]", "f16[6,4,3,3]");
        Value x3 = in(g, f32(1, 4, 8));
        rejects(g, "conv", () -> g.conv2d(x3, w, null, 1, 0, 1, 1), "f32[1,4,8]", "rank 4");
        Value xi = in(g, DType.I32, 1, 4, 8, 8);
        Value wi = in(g, DType.I32, 6, 4, 3, 3);
        rejects(g, "conv", () -> g.conv2d(xi, wi, null, 1, 0, 1, 1), "i32[1,4,8,8]");
    }

    @Test
    void conv_windowLargerThanPaddedInput_rejected() {
        Graph g = new Graph("c");
        Value x = in(g, f32(1, 1, 2, 2));
        Value w = in(g, f32(1, 1, 3, 3));
        rejects(g, "conv", () -> g.conv2d(x, w, null, 1, 0, 1, 1), "f32[1,1,2,2]", "window 3");
        assertEquals(f32(1, 1, 2, 2), g.conv2d(x, w, null, 1, 1, 1, 1).shape(), "padding makes room");
    }

    @Test
    void conv_zeroSizeKernel_rejected() {
        Graph g = new Graph("c");
        Value x = in(g, f32(1, 1, 5));
        Value w = in(g, f32(1, 1, 0));
        rejects(g, "conv", () -> g.conv(x, w, null, Conv.of(1)), "f32[1,1,0]", "kernel");
    }

    @Test
    void convTranspose_zeroSizeKernel_rejected() {
        Graph g = new Graph("c");
        Value x = in(g, f32(1, 1, 5));
        Value w = in(g, f32(1, 1, 0));
        rejects(g, "conv_transpose", () -> g.convTranspose(x, w, null, ConvTranspose.of(1)), "f32[1,1,0]", "kernel");
    }

    @Test
    void conv_outputSizePastIntRange_rejected() {
        Graph g = new Graph("c");
        Value x = in(g, f32(1, 1, 1000));
        Value w = in(g, f32(1, 1, 1));
        // 1000 + 2 * (2^31 - 1) - 1 windows + 1 = 2^32 + 998: more than a dim can hold (it must not wrap to 998)
        Conv spec = Conv.of(1).withPads(Integer.MAX_VALUE);
        rejects(g, "conv", () -> g.conv(x, w, null, spec), "f32[1,1,1000]");
    }

    @Test
    void conv_specValidation() {
        rejects("conv", () -> Conv.of(2).withStrides(0, 1), "stride");
        rejects("conv", () -> Conv.of(2).withPads(-1, 0), "padding");
        rejects("conv", () -> Conv.of(2).withDilations(1, 0), "dilation");
        rejects("conv", () -> Conv.of(2).withGroups(0), "groups");
        rejects("conv", () -> Conv.of(4), "1 to 3");
        rejects("conv", () -> Conv.of(0), "1 to 3");
        rejects("conv", () -> new Conv(List.of(1, 1), List.of(0, 0, 0), List.of(1, 1), 1), "pads");
        rejects("conv", () -> Conv.of(2).withDilations(1), "dilations");
    }

    // ---------------------------------------------------------------- conv transpose

    @Test
    void convTranspose_outputSizes() {
        Graph g = new Graph("t");
        Value x = in(g, f32(1, 4, 5));
        Value w = in(g, f32(4, 2, 3));
        // (in-1)*stride - pads + dilation*(k-1) + outputPadding + 1
        assertEquals(f32(1, 2, 7), g.convTranspose(x, w, null, ConvTranspose.of(1)).shape()); // 4+2+1
        assertEquals(f32(1, 2, 11), g.convTranspose(x, w, null, ConvTranspose.of(1).withStrides(2)).shape()); // 8+2+1
        assertEquals(f32(1, 2, 9), g.convTranspose(x, w, null, ConvTranspose.of(1).withStrides(2).withPads(1)).shape());
        assertEquals(f32(1, 2, 10), g.convTranspose(x, w, null,
                ConvTranspose.of(1).withStrides(2).withPads(1).withOutputPadding(1)).shape());
        assertEquals(f32(1, 2, 9), g.convTranspose(x, w, null, ConvTranspose.of(1).withDilations(2)).shape()); // 4+4+1
        Value w3 = in(g, f32(4, 3, 3));
        assertEquals(f32(1, 6, 7), g.convTranspose(x, w3, in(g, f32(6)), ConvTranspose.of(1).withGroups(2)).shape());
    }

    @Test
    void convTranspose_outputPaddingRule() {
        // must be smaller than the stride or the dilation
        assertEquals(List.of(1), ConvTranspose.of(1).withStrides(2).withOutputPadding(1).outputPadding());
        assertEquals(List.of(2), ConvTranspose.of(1).withDilations(3).withOutputPadding(2).outputPadding());
        rejects("conv_transpose", () -> ConvTranspose.of(1).withStrides(2).withOutputPadding(2), "outputPadding 2");
        rejects("conv_transpose", () -> ConvTranspose.of(1).withOutputPadding(1), "outputPadding 1");
        rejects("conv_transpose", () -> ConvTranspose.of(1).withStrides(2).withOutputPadding(-1), "outputPadding -1");
        rejects("conv_transpose", () -> ConvTranspose.of(2).withStrides(2, 2).withOutputPadding(1), "outputPadding");
    }

    @Test
    void convTranspose_rejections() {
        Graph g = new Graph("t");
        Value x = in(g, f32(1, 4, 5));
        Value w5 = in(g, f32(5, 2, 3));
        rejects(g, "conv_transpose", () -> g.convTranspose(x, w5, null, ConvTranspose.of(1)), "f32[5,2,3]", "Cin=4");
        Value w = in(g, f32(4, 2, 3));
        rejects(g, "conv_transpose", () -> g.convTranspose(x, w, null, ConvTranspose.of(1).withGroups(3)), "groups=3");
        Value b = in(g, f32(3));
        rejects(g, "conv_transpose", () -> g.convTranspose(x, w, b, ConvTranspose.of(1)), "bias", "f32[2]", "f32[3]");
        Value x1 = in(g, f32(1, 1, 1));
        Value w1 = in(g, f32(1, 1, 1));
        // (1-1)*1 - 1 - 1 + 0 + 0 + 1 = -1
        rejects(g, "conv_transpose", () -> g.convTranspose(x1, w1, null, ConvTranspose.of(1).withPads(1)), "-1");
        Value x2 = in(g, f32(1, 4, 5, 5));
        rejects(g, "conv_transpose", () -> g.convTranspose(x2, w, null, ConvTranspose.of(1)), "f32[1,4,5,5]", "rank 3");
    }

    // ---------------------------------------------------------------- pool

    @Test
    void pool_floorAndCeilMode() {
        Graph g = new Graph("p");
        Value x = in(g, f32(1, 3, 32, 32));
        assertEquals(f32(1, 3, 16, 16), g.maxPool(x, 2, 2).shape());
        assertEquals(f32(1, 3, 10, 10), g.avgPool(x, 3, 3).shape()); // floor(29/3)+1 = 10
        Value x5 = in(g, f32(1, 1, 5));
        Pool p = Pool.of(Pool.Kind.MAX, 2);
        assertEquals(f32(1, 1, 2), g.pool(x5, p).shape()); // floor((5-2)/2)+1
        assertEquals(f32(1, 1, 3), g.pool(x5, p.withCeilMode(true)).shape()); // ceil(3/2)+1
        // pads 1/1, ceil: ceil((5+2-2)/2)+1 = 4, but window 4 would start at padded index 6 = in + padBegin,
        // i.e. entirely in the end padding, so it is dropped: 3.
        assertEquals(f32(1, 1, 3), g.pool(x5, p.withPads(1).withCeilMode(true)).shape());
        assertEquals(f32(1, 1, 3), g.pool(x5, p.withPads(1)).shape()); // floor(5/2)+1
        // dilation 2 with kernel 2 spans 3 cells: floor((5-3)/1)+1 = 3
        assertEquals(f32(1, 1, 3), g.pool(x5, p.withStrides(1).withDilations(2)).shape());
    }

    @Test
    void pool_ceilMode_partialWindowOverInputSmallerThanKernel() {
        Graph g = new Graph("p");
        Value x1 = in(g, f32(1, 1, 1));
        Pool p = Pool.of(Pool.Kind.MAX, 2);
        // PyTorch/ONNX: floor((1 - 1*(2-1) - 1 + (2-1)) / 2) + 1 = 1: one window starting on the only cell
        assertEquals(f32(1, 1, 1), g.pool(x1, p.withCeilMode(true)).shape());
        rejects(g, "max_pool", () -> g.pool(x1, p), "f32[1,1,1]", "window 2"); // floor mode: no window fits
        // stride 1: ceil((1-2)/1) + 1 = 0 windows even in ceil mode
        rejects(g, "max_pool", () -> g.pool(x1, p.withStrides(1).withCeilMode(true)), "f32[1,1,1]");
    }

    @Test
    void pool_padsMustBeSmallerThanWindow() {
        Pool p = Pool.of(Pool.Kind.MAX, 2, 2);
        assertEquals(List.of(1, 1, 1, 1), p.withPads(1, 1).pads());
        rejects("pool", () -> p.withPads(2, 0), "pads", "window 2");
        rejects("pool", () -> p.withPads(0, 0, 0, 2), "pads", "window 2");
        // a dilated window is wider: kernel 2, dilation 2 spans 3, so padding 2 is allowed
        assertEquals(List.of(2, 2, 2, 2), p.withDilations(2, 2).withPads(2, 2).pads());
        rejects("pool", () -> new Pool(Pool.Kind.AVG, List.of(0), List.of(1), List.of(0, 0), List.of(1), false, true),
                "kernel size");
        rejects("pool", () -> new Pool(Pool.Kind.AVG, List.of(2), List.of(2, 2), List.of(0, 0, 0, 0),
                List.of(1, 1), false, true), "kernel");
    }

    @Test
    void pool_countIncludePad_isAnAttributeNotAShapeChange() {
        Graph g = new Graph("p");
        Value x = in(g, f32(1, 2, 6, 6));
        Pool incl = Pool.of(Pool.Kind.AVG, 3, 3).withStrides(1, 1).withPads(1, 1);
        Pool excl = incl.withCountIncludePad(false);
        assertEquals(g.pool(x, incl).shape(), g.pool(x, excl).shape());
        assertEquals(f32(1, 2, 6, 6), g.pool(x, excl).shape());
        assertNotEquals(incl, excl);
        assertEquals(true, incl.countIncludePad());
        assertEquals(false, excl.countIncludePad());
    }

    @Test
    void pool_rejections() {
        Graph g = new Graph("p");
        Value x3 = in(g, f32(1, 3, 32));
        rejects(g, "max_pool", () -> g.maxPool(x3, 2, 2), "f32[1,3,32]", "rank 4");
        Value xi = in(g, DType.I32, 1, 3, 8, 8);
        rejects(g, "avg_pool", () -> g.avgPool(xi, 2, 2), "i32[1,3,8,8]");
        Value small = in(g, f32(1, 1, 2, 2));
        rejects(g, "max_pool", () -> g.maxPool(small, 3, 3), "f32[1,1,2,2]", "window 3");
        assertEquals(f32(1, 2, 3, 4), out(Pool.of(Pool.Kind.MAX, 1, 1), f32(1, 2, 3, 4)));
    }
}
