package dev.rlx.cpu;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.testkit.Close;
import dev.rlx.testkit.reference.NnReference;
import dev.rlx.testkit.reference.Ref;
import dev.rlx.cpu.testing.Runner;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompileException;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The CPU conv and transposed-conv kernels against {@link NnReference} on random data. */
class ConvKernelsTest {
    /**
     * f32: each output sums at most ~110 products of values in [-1, 1), accumulated in f32, so rounding stays
     * near 1e-6; an indexing mistake shows up at the 1e-1 level.
     */
    private static final double F32_ATOL = 1e-5;
    private static final double F32_RTOL = 1e-4;
    /** f64 accumulates in double, in a different order than the reference. */
    private static final double F64_ATOL = 1e-12;

    private static void checkConv(Op.Conv spec, DType dt, boolean withBias, int[] xDims, int[] wDims, long seed) {
        checkConv(spec, dt, withBias, xDims, wDims, seed, dt == DType.F32 ? F32_ATOL : F64_ATOL);
    }

    private static void checkConv(Op.Conv spec, DType dt, boolean withBias, int[] xDims, int[] wDims, long seed,
                                  double atol) {
        Random r = new Random(seed);
        Ref x = Ref.random(r, -1, 1, xDims);
        Ref w = Ref.random(r, -1, 1, wDims);
        Ref b = withBias ? Ref.random(r, -1, 1, wDims[0]) : null;
        Graph g = new Graph("conv");
        Value xv = g.input("x", Shape.of(dt, xDims));
        Value wv = g.input("w", Shape.of(dt, wDims));
        Value bv = withBias ? g.input("b", Shape.of(dt, wDims[0])) : null;
        g.setOutputs(g.conv(xv, wv, bv, spec));
        double[] out = Runner.run(g, feeds(x, w, b)).get(0);
        Close.assertClose(NnReference.conv(x, w, b, spec).data(), out, atol, dt == DType.F32 ? F32_RTOL : 0,
                "conv " + spec + " " + dt);
    }

    private static void checkConvTranspose(Op.ConvTranspose spec, DType dt, boolean withBias, int[] xDims, int[] wDims,
                                           long seed) {
        Random r = new Random(seed);
        Ref x = Ref.random(r, -1, 1, xDims);
        Ref w = Ref.random(r, -1, 1, wDims);
        Ref b = withBias ? Ref.random(r, -1, 1, wDims[1] * spec.groups()) : null;
        Graph g = new Graph("conv_transpose");
        Value xv = g.input("x", Shape.of(dt, xDims));
        Value wv = g.input("w", Shape.of(dt, wDims));
        Value bv = withBias ? g.input("b", Shape.of(dt, wDims[1] * spec.groups())) : null;
        g.setOutputs(g.convTranspose(xv, wv, bv, spec));
        double[] out = Runner.run(g, feeds(x, w, b)).get(0);
        assertClose(NnReference.convTranspose(x, w, b, spec), out, dt, "conv_transpose " + spec);
    }

    private static Map<String, Object> feeds(Ref x, Ref w, Ref b) {
        Map<String, Object> m = new HashMap<>();
        m.put("x", x.data());
        m.put("w", w.data());
        if (b != null) {
            m.put("b", b.data());
        }
        return m;
    }

    private static void assertClose(Ref expected, double[] actual, DType dt, String what) {
        boolean f32 = dt == DType.F32;
        Close.assertClose(expected.data(), actual, f32 ? F32_ATOL : F64_ATOL, f32 ? F32_RTOL : 0, what + " " + dt);
    }

    private static int[] dims(int... d) {
        return d;
    }

    // ---------------------------------------------------------------- conv as im2col + GEMM (f32, >= 16 out channels per group)

    /** Sums of K = Cin/g * taps products: f32 rounding grows with K, so the bound does too (2e-7 * K). */
    private static double gemmAtol(int k) {
        return 2e-7 * k;
    }

    @Test
    void convGemm_2dSamePaddingBiasRagged() {
        checkConv(Op.Conv.of(2).withPads(1, 1), DType.F32, true, dims(2, 5, 13, 29), dims(17, 5, 3, 3), 40, gemmAtol(45));
    }

    @Test
    void convGemm_2dStrideDilationAsymmetricPadsNoBias() {
        checkConv(Op.Conv.of(2).withStrides(2, 3).withDilations(2, 1).withPads(2, 0, 1, 2), DType.F32, false,
                dims(1, 3, 17, 23), dims(20, 3, 3, 5), 41, gemmAtol(45));
    }

    @Test
    void convGemm_2dGroups() {
        checkConv(Op.Conv.of(2).withGroups(2).withPads(1, 1), DType.F32, true, dims(2, 6, 9, 11), dims(32, 3, 3, 3), 42,
                gemmAtol(27));
    }

    @Test
    void convGemm_deepInputManyChunks() {
        // K = 64 * 9 = 576: a chunk holds a few output rows, so 20 rows take several chunks (and both threads)
        checkConv(Op.Conv.of(2).withPads(1, 1), DType.F32, true, dims(1, 64, 20, 30), dims(16, 64, 3, 3), 43,
                gemmAtol(576));
    }

    @Test
    void convGemm_1dAnd3d() {
        checkConv(Op.Conv.of(1).withStrides(2).withPads(1, 2), DType.F32, true, dims(2, 7, 31), dims(19, 7, 3), 44,
                gemmAtol(21));
        checkConv(Op.Conv.of(3).withPads(1, 0, 1, 1, 0, 1), DType.F32, true, dims(1, 3, 5, 6, 7), dims(16, 3, 3, 2, 3), 45,
                gemmAtol(54));
    }

    @Test
    void convGemm_3dSamePaddingCopiesRowStretchesWithinEachPlane() {
        // input rows as long as output rows: im2col copies runs of consecutive rows at once, but never across
        // a depth plane (row 5 of plane 0 and row 0 of plane 1 are not neighbours in the input) or padding
        checkConv(Op.Conv.of(3).withPads(1, 1, 1, 1, 1, 1), DType.F32, true, dims(2, 4, 5, 6, 9), dims(16, 4, 3, 3, 3),
                46, gemmAtol(108));
    }

    // ---------------------------------------------------------------- conv

    @Test
    void conv_1dStrideAsymmetricPadsBias() {
        checkConv(Op.Conv.of(1).withStrides(2).withPads(1, 2), DType.F32, true, dims(2, 3, 11), dims(4, 3, 3), 1);
    }

    @Test
    void conv_1dDilationNoBias() {
        checkConv(Op.Conv.of(1).withDilations(2).withPads(2), DType.F32, false, dims(2, 3, 13), dims(2, 3, 3), 2);
    }

    @Test
    void conv_2dSamePaddingBias() {
        // width 37, stride 1: whole-vector runs plus scalar tails
        checkConv(Op.Conv.of(2).withPads(1, 1), DType.F32, true, dims(2, 3, 9, 37), dims(5, 3, 3, 3), 3);
    }

    @Test
    void conv_2dStrideAsymmetricPads() {
        // pads: begins (h=1, w=0) then ends (h=2, w=1)
        checkConv(Op.Conv.of(2).withStrides(2, 3).withPads(1, 0, 2, 1), DType.F32, true, dims(2, 2, 10, 11),
                dims(3, 2, 3, 4), 4);
    }

    @Test
    void conv_2dDilation() {
        checkConv(Op.Conv.of(2).withDilations(2, 3).withPads(2, 3), DType.F32, false, dims(1, 2, 9, 12),
                dims(3, 2, 3, 3), 5);
    }

    @Test
    void conv_2dGroups() {
        checkConv(Op.Conv.of(2).withGroups(2).withPads(1, 1).withStrides(1, 2), DType.F32, true, dims(2, 4, 7, 9),
                dims(6, 2, 3, 3), 6);
    }

    @Test
    void conv_2dDepthwise() {
        checkConv(Op.Conv.of(2).withGroups(4).withPads(1, 1).withStrides(2, 2), DType.F32, true, dims(2, 4, 9, 8),
                dims(4, 1, 3, 3), 7);
    }

    @Test
    void conv_2dPointwise() {
        checkConv(Op.Conv.of(2), DType.F32, true, dims(2, 5, 4, 6), dims(3, 5, 1, 1), 8);
    }

    @Test
    void conv_3d() {
        checkConv(Op.Conv.of(3).withStrides(1, 2, 1).withPads(1, 0, 1, 0, 1, 2).withDilations(1, 1, 2), DType.F32, true,
                dims(2, 2, 5, 6, 7), dims(3, 2, 2, 3, 3), 9);
    }

    @Test
    void conv_manyRowsRunParallel() {
        checkConv(Op.Conv.of(2).withPads(1, 1), DType.F32, true, dims(2, 4, 24, 24), dims(8, 4, 3, 3), 10);
    }

    @Test
    void conv_f64() {
        checkConv(Op.Conv.of(2).withStrides(2, 1).withPads(1, 0, 0, 2).withDilations(1, 2).withGroups(2), DType.F64,
                true, dims(2, 4, 8, 9), dims(4, 2, 3, 3), 11);
        checkConv(Op.Conv.of(1).withPads(1), DType.F64, false, dims(1, 2, 7), dims(3, 2, 3), 12);
    }

    /**
     * Half tensors are a storage format on the CPU: operands are widened, the f32 kernel runs, and the result
     * is rounded once. So the reference is the f64 conv of the half-rounded inputs, within half an ulp of the
     * half type (2^-11 relative for f16, 2^-8 for bf16) plus the f32 error.
     */
    @Test
    void conv_halfTypes_computeInF32AndRoundOnce() {
        for (DType dt : new DType[] {DType.F16, DType.BF16}) {
            Random r = new Random(21);
            java.util.function.DoubleUnaryOperator round = v -> dt == DType.F16
                    ? dev.rlx.ir.HalfFloats.f16ToFloat(dev.rlx.ir.HalfFloats.toF16((float) v))
                    : dev.rlx.ir.HalfFloats.bf16ToFloat(dev.rlx.ir.HalfFloats.toBF16((float) v));
            Ref x = Ref.random(r, -1, 1, 2, 3, 7, 6).map(round);
            Ref w = Ref.random(r, -1, 1, 4, 3, 3, 3).map(round);
            Ref b = Ref.random(r, -1, 1, 4).map(round);
            Op.Conv spec = Op.Conv.of(2).withPads(1, 1).withStrides(2, 1);
            Graph g = new Graph("conv");
            g.setOutputs(g.conv(g.input("x", Shape.of(dt, 2, 3, 7, 6)), g.input("w", Shape.of(dt, 4, 3, 3, 3)),
                    g.input("b", Shape.of(dt, 4)), spec));
            double[] out = Runner.run(g, feeds(x, w, b)).get(0);
            Close.assertClose(NnReference.conv(x, w, b, spec).data(), out, 1e-5, dt == DType.F16 ? 6e-4 : 4e-3,
                    "conv " + dt);
        }
    }

    // ---------------------------------------------------------------- conv transpose

    @Test
    void convTranspose_1dStridePadOutputPaddingBias() {
        checkConvTranspose(Op.ConvTranspose.of(1).withStrides(2).withPads(1, 0).withOutputPadding(1), DType.F32, true,
                dims(2, 3, 5), dims(3, 2, 3), 20);
    }

    @Test
    void convTranspose_2dStrideOne() {
        // stride 1: contiguous runs on both sides (vector path), width 35 for tails
        checkConvTranspose(Op.ConvTranspose.of(2).withPads(1, 1), DType.F32, true, dims(2, 3, 6, 35), dims(3, 4, 3, 3),
                21);
    }

    @Test
    void convTranspose_2dStridePadsOutputPadding() {
        checkConvTranspose(Op.ConvTranspose.of(2).withStrides(2, 3).withPads(1, 0, 0, 2).withOutputPadding(1, 2),
                DType.F32, true, dims(2, 2, 4, 5), dims(2, 3, 3, 4), 22);
    }

    @Test
    void convTranspose_2dDilation() {
        checkConvTranspose(Op.ConvTranspose.of(2).withStrides(2, 2).withDilations(2, 3).withPads(1, 2), DType.F32,
                false, dims(1, 2, 5, 4), dims(2, 2, 3, 2), 23);
    }

    @Test
    void convTranspose_2dGroups() {
        checkConvTranspose(Op.ConvTranspose.of(2).withGroups(2).withStrides(2, 2).withPads(1, 1), DType.F32, true,
                dims(2, 4, 5, 5), dims(4, 3, 3, 3), 24);
    }

    @Test
    void convTranspose_3d() {
        checkConvTranspose(Op.ConvTranspose.of(3).withStrides(2, 1, 2).withPads(0, 1, 1, 1, 0, 0)
                .withOutputPadding(1, 0, 1), DType.F32, true, dims(1, 2, 3, 4, 3), dims(2, 2, 2, 3, 2), 25);
    }

    @Test
    void convTranspose_f64() {
        checkConvTranspose(Op.ConvTranspose.of(2).withStrides(2, 2).withPads(1, 0, 0, 1).withOutputPadding(1, 1)
                .withGroups(2), DType.F64, true, dims(2, 4, 4, 3), dims(4, 2, 3, 3), 26);
    }
}
