package dev.rlx.testkit.reference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.FftKind;
import dev.rlx.ir.FftNorm;
import dev.rlx.ir.Graph;
import dev.rlx.ir.HeadLayout;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The reference's hardest ops against values worked out by hand (convolution with groups and dilation, an FFT of
 * prime length, attention masks), its storage rules (rounding once, integer wrapping, casts), and its typed errors.
 */
class ReferenceInterpreterTest {
    private final ReferenceInterpreter ref = new ReferenceInterpreter();

    private static Tensor f32(double[] v, int... dims) {
        return TensorData.of(Shape.of(DType.F32, dims), v);
    }

    private static double[] values(Tensor t) {
        return TensorData.doubles(t);
    }

    private List<Tensor> run(Graph g, Map<String, Tensor> data) {
        return ref.run(g, data);
    }

    // ---------------------------------------------------------------- convolution

    /**
     * x [1, 2, 5] (two channels 1..5 and 10..50), w [2, 1, 2] (groups 2: one input channel each), dilation 2,
     * pad 1 each side: output width (5 + 2 - 2*1 - 1) / 1 + 1 = 5, position o reads x[o - 1] and x[o + 1].
     */
    @Test
    void conv_groupsAndDilation_byHand() {
        Graph g = new Graph("conv");
        Value x = g.input("x", Shape.of(DType.F32, 1, 2, 5));
        Value w = g.input("w", Shape.of(DType.F32, 2, 1, 2));
        Value b = g.input("b", Shape.of(DType.F32, 2));
        g.setOutputs(g.conv(x, w, b, Op.Conv.of(1).withGroups(2).withDilations(2).withPads(1)));
        double[] out = values(run(g, Map.of("x", f32(new double[] {1, 2, 3, 4, 5, 10, 20, 30, 40, 50}, 1, 2, 5),
                "w", f32(new double[] {1, -1, 2, 3}, 2, 1, 2), "b", f32(new double[] {0.5, -1}, 2))).get(0));
        // channel 0: x[o-1] - x[o+1] + 0.5 with x = 1..5 (zero outside)
        // channel 1: 2 x[o-1] + 3 x[o+1] - 1 with x = 10..50
        assertArrayEquals(new double[] {-1.5, -1.5, -1.5, -1.5, 4.5, 59, 109, 159, 209, 79}, out);
    }

    /** A 2x2 kernel with stride 2 over a 1-channel 3x3 image padded at the end: 2x2 windows, some half outside. */
    @Test
    void conv_strideAndEndPadding_byHand() {
        Graph g = new Graph("conv2d");
        g.setOutputs(g.conv(g.input("x", Shape.of(DType.F32, 1, 1, 3, 3)), g.input("w", Shape.of(DType.F32, 1, 1, 2, 2)),
                null, Op.Conv.of(2).withStrides(2, 2).withPads(0, 0, 1, 1)));
        double[] out = values(run(g, Map.of("x", f32(new double[] {1, 2, 3, 4, 5, 6, 7, 8, 9}, 1, 1, 3, 3),
                "w", f32(new double[] {1, 10, 100, 1000}, 1, 1, 2, 2))).get(0));
        // window (0,0): 1 + 20 + 400 + 5000; (0,2): 3 + 0 + 600 + 0; (2,0): 7 + 80; (2,2): 9
        assertArrayEquals(new double[] {5421, 603, 87, 9}, out);
    }

    // ---------------------------------------------------------------- fft

    /** {@code fft([1, 2, 3])} = {@code [6, -1.5 + (sqrt 3 / 2) i, -1.5 - (sqrt 3 / 2) i]}. */
    @Test
    void fft_primeLengthThree_byHand() {
        Graph g = new Graph("fft3");
        g.setOutputs(g.fft(g.input("x", Shape.of(DType.F64, 3, 2)), FftKind.C2C_FORWARD, 0, FftNorm.BACKWARD, 3));
        double[] out = values(run(g, Map.of("x", TensorData.of(Shape.of(DType.F64, 3, 2), new double[] {1, 0, 2, 0, 3, 0})))
                .get(0));
        double h = Math.sqrt(3) / 2;
        double[] want = {6, 0, -1.5, h, -1.5, -h};
        for (int i = 0; i < want.length; i++) {
            assertEquals(want[i], out[i], 1e-14, "element " + i);
        }
    }

    /**
     * Length 7: a unit impulse at t = 2 has {@code X[k] = e^{-2 pi i 2k / 7}}; rfft gives bins 0..3; irfft with
     * ORTHO scaling inverts an ORTHO rfft.
     */
    @Test
    void fft_primeLengthSeven_impulse() {
        Graph g = new Graph("fft7");
        Value x = g.input("x", Shape.of(DType.F64, 7));
        Value spectrum = g.fft(x, FftKind.R2C, 0, FftNorm.ORTHO, 7);
        g.setOutputs(spectrum, g.fft(spectrum, FftKind.C2R, 0, FftNorm.ORTHO, 7));
        List<Tensor> out = run(g, Map.of("x", TensorData.of(Shape.of(DType.F64, 7), new double[] {0, 0, 1, 0, 0, 0, 0})));
        double[] bins = values(out.get(0));
        for (int k = 0; k <= 3; k++) {
            double angle = -2 * Math.PI * 2 * k / 7;
            assertEquals(Math.cos(angle) / Math.sqrt(7), bins[2 * k], 1e-15, "re " + k);
            assertEquals(Math.sin(angle) / Math.sqrt(7), bins[2 * k + 1], 1e-15, "im " + k);
        }
        double[] back = values(out.get(1));
        for (int t = 0; t < 7; t++) {
            assertEquals(t == 2 ? 1 : 0, back[t], 1e-15, "t " + t);
        }
    }

    // ---------------------------------------------------------------- attention

    /**
     * One head of size 1, q = [1], keys k = [0, ln 2, ln 4] (scale 1), values [10, 20, 30]: the scores are
     * k, so the weights are 1 : 2 : 4 over the visible keys.
     */
    @Test
    void attention_masks_byHand() {
        double ln2 = Math.log(2);
        Map<String, Tensor> data = Map.of(
                "q", TensorData.of(Shape.of(DType.F64, 1, 3, 1, 1), new double[] {1, 1, 1}),
                "k", TensorData.of(Shape.of(DType.F64, 1, 3, 1, 1), new double[] {0, ln2, 2 * ln2}),
                "v", TensorData.of(Shape.of(DType.F64, 1, 3, 1, 1), new double[] {10, 20, 30}),
                "keep", TensorData.ofLongs(Shape.of(DType.BOOL, 3, 3), new long[] {1, 0, 1, 0, 0, 0, 1, 1, 0}));
        Op.Attention plain = new Op.Attention(1, 1, 1, HeadLayout.BSHD, Op.Attention.Mask.NONE, 0, 1f, 0f);
        double all = (10 + 2 * 20 + 4 * 30) / 7.0;
        assertArrayEquals(new double[] {all, all, all}, attend(plain, data, false), 1e-12, "no mask");
        // causal: query i sees keys 0..i
        assertArrayEquals(new double[] {10, (10 + 40) / 3.0, all}, attend(plain.causal(), data, false), 1e-12, "causal");
        // window 2: query i sees keys i-1..i
        assertArrayEquals(new double[] {10, (10 + 40) / 3.0, (40 + 120) / 6.0}, attend(plain.slidingWindow(2), data, false),
                1e-12, "sliding window");
        // keep mask rows: {0, 2}, {} (fully masked: zeros), {0, 1}
        assertArrayEquals(new double[] {(10 + 120) / 5.0, 0, (10 + 40) / 3.0}, attend(plain, data, true), 1e-12, "bool mask");
    }

    private double[] attend(Op.Attention spec, Map<String, Tensor> data, boolean mask) {
        Graph g = new Graph("attention");
        Value q = g.input("q", Shape.of(DType.F64, 1, 3, 1, 1));
        Value k = g.input("k", Shape.of(DType.F64, 1, 3, 1, 1));
        Value v = g.input("v", Shape.of(DType.F64, 1, 3, 1, 1));
        g.setOutputs(g.attention(q, k, v, mask ? g.input("keep", Shape.of(DType.BOOL, 3, 3)) : null, spec));
        Map<String, Tensor> feeds = mask ? data : Map.of("q", data.get("q"), "k", data.get("k"), "v", data.get("v"));
        return values(run(g, feeds).get(0));
    }

    /** An additive -inf row masks every key: zeros, not NaN; a finite additive mask shifts the scores. */
    @Test
    void attention_additiveMask_byHand() {
        Graph g = new Graph("additive");
        Value q = g.input("q", Shape.of(DType.F64, 1, 2, 1, 1));
        Value k = g.input("k", Shape.of(DType.F64, 1, 2, 1, 1));
        Value v = g.input("v", Shape.of(DType.F64, 1, 2, 1, 1));
        g.setOutputs(g.attention(q, k, v, g.input("m", Shape.of(DType.F64, 2, 2)),
                new Op.Attention(1, 1, 1, HeadLayout.BSHD, Op.Attention.Mask.NONE, 0, 1f, 0f)));
        double inf = Double.NEGATIVE_INFINITY;
        double[] out = values(run(g, Map.of("q", TensorData.of(Shape.of(DType.F64, 1, 2, 1, 1), new double[] {0, 0}),
                "k", TensorData.of(Shape.of(DType.F64, 1, 2, 1, 1), new double[] {0, 0}),
                "v", TensorData.of(Shape.of(DType.F64, 1, 2, 1, 1), new double[] {1, 4}),
                "m", TensorData.of(Shape.of(DType.F64, 2, 2), new double[] {Math.log(3), 0, inf, inf}))).get(0));
        assertArrayEquals(new double[] {(3 * 1 + 4) / 4.0, 0}, out, 1e-12);
    }

    // ---------------------------------------------------------------- storage rules

    /** Each node's output is stored in its dtype: 1 + 2^-30 in f32 is 1, so (x + e) - x is 0, not 2^-30. */
    @Test
    void valuesBetweenNodes_areRoundedToTheirDtype() {
        Graph g = new Graph("round");
        Value x = g.input("x", Shape.of(DType.F32, 1));
        Value e = g.scalar((float) Math.pow(2, -30));
        g.setOutputs(g.sub(g.add(x, e), x));
        assertArrayEquals(new double[] {0}, values(run(g, Map.of("x", f32(new double[] {1}, 1))).get(0)));
    }

    @Test
    void integers_wrapAndCastsSaturate() {
        Graph g = new Graph("ints");
        Value a = g.input("a", Shape.of(DType.I8, 3));
        Value f = g.input("f", Shape.of(DType.F32, 3));
        g.setOutputs(g.add(a, a), g.cast(f, DType.U8), g.cast(a, DType.U32), g.neg(a));
        List<Tensor> out = run(g, Map.of("a", TensorData.ofLongs(Shape.of(DType.I8, 3), new long[] {100, -128, 7}),
                "f", f32(new double[] {300, -2.5, Double.NaN}, 3)));
        assertArrayEquals(new long[] {-56, 0, 14}, TensorData.longs(out.get(0)));
        assertArrayEquals(new long[] {255, 0, 0}, TensorData.longs(out.get(1)));
        assertArrayEquals(new long[] {100, 4294967168L, 7}, TensorData.longs(out.get(2)));
        assertArrayEquals(new long[] {-100, -128, -7}, TensorData.longs(out.get(3)));
    }

    /** Rounding to f16 happens once, from the double: 1 + 2^-11 + 2^-30 is just above the tie, so it rounds up. */
    @Test
    void halfPrecision_roundsOnceFromDouble() {
        Graph g = new Graph("half");
        g.setOutputs(g.cast(g.input("x", Shape.of(DType.F64, 1)), DType.F16));
        double v = 1 + Math.pow(2, -11) + Math.pow(2, -30);
        double[] out = values(run(g, Map.of("x", TensorData.of(Shape.of(DType.F64, 1), new double[] {v}))).get(0));
        assertArrayEquals(new double[] {1 + Math.pow(2, -10)}, out);
    }

    // ---------------------------------------------------------------- errors

    @Test
    void missingData_isATypedErrorNamingTheSlot() {
        Graph g = new Graph("missing");
        g.setOutputs(g.relu(g.input("x", Shape.of(DType.F32, 2))));
        ReferenceException e = assertThrows(ReferenceException.class, () -> run(g, Map.of()));
        assertTrue(e.getMessage().contains("input 'x'"), e.getMessage());
        ReferenceException shape = assertThrows(ReferenceException.class,
                () -> run(g, Map.of("x", f32(new double[] {1, 2, 3}, 3))));
        assertTrue(shape.getMessage().contains("f32[2]") && shape.getMessage().contains("f32[3]"), shape.getMessage());
    }

    @Test
    void gatherOutOfRange_namesTheNodeAndIndex() {
        Graph g = new Graph("gather");
        g.setOutputs(g.name(g.gather(g.input("d", Shape.of(DType.F32, 5, 4)), g.input("i", Shape.of(DType.I64, 2)), 0),
                "lookup"));
        ReferenceException e = assertThrows(ReferenceException.class, () -> run(g, Map.of(
                "d", f32(new double[20], 5, 4), "i", TensorData.ofLongs(Shape.of(DType.I64, 2), new long[] {1, 5}))));
        assertTrue(e.getMessage().contains("'lookup'") && e.getMessage().contains("index 5 at [1]"), e.getMessage());
    }

    @Test
    void whilePastItsGuard_isATypedError() {
        Graph cond = new Graph("cond");
        cond.setOutputs(cond.lt(cond.input("i", Shape.scalar(DType.F32)), cond.scalar(10f)));
        Graph body = new Graph("body");
        body.setOutputs(body.add(body.input("i", Shape.scalar(DType.F32)), body.scalar(1f)));
        Graph g = new Graph("loop");
        g.setOutputs(g.whileLoop(cond, body, 3, g.input("i", Shape.scalar(DType.F32))));
        ReferenceException e = assertThrows(ReferenceException.class,
                () -> run(g, Map.of("i", f32(new double[] {0}, new int[0]))));
        assertTrue(e.getMessage().contains("maxIterations guard of 3"), e.getMessage());
        assertArrayEquals(new double[] {10}, values(run(g, Map.of("i", f32(new double[] {7}, new int[0]))).get(0)));
    }

    @Test
    void orderingComplexValues_isATypedError() {
        Graph g = new Graph("complex");
        g.setOutputs(g.reduceMax(g.input("z", Shape.of(DType.C64, 2)), false));
        ReferenceException e = assertThrows(ReferenceException.class,
                () -> run(g, Map.of("z", TensorData.of(Shape.of(DType.C64, 2), new double[] {1, 2, 3, 4}))));
        assertTrue(e.getMessage().contains("no order"), e.getMessage());
    }
}
