package dev.rlx.testkit.cases;

import static dev.rlx.testkit.cases.Shapes.of;
import static dev.rlx.testkit.cases.Shapes.t;

import dev.rlx.ir.DType;
import dev.rlx.ir.Op;
import dev.rlx.ir.Value;
import dev.rlx.testkit.OpCase;
import dev.rlx.testkit.OpFamily;
import dev.rlx.testkit.Tolerance;
import java.util.ArrayList;
import java.util.List;

/**
 * Convolution and transposed convolution with 1 to 3 spatial dims: strides, asymmetric pads, dilations, groups
 * (depthwise too), pointwise kernels, with and without bias; sizes that take an im2col + GEMM path (>= 16 output
 * channels per group) and a direct one, and enough rows for the parallel split.
 *
 * <p>f32: each output sums at most ~600 products of values in [-1, 1) accumulated in f32, so rounding grows with
 * the number of terms K; an indexing mistake shows at the 1e-1 level.
 */
final class ConvCases {
    private ConvCases() {}

    static final Tolerance F32 = Tolerance.of(1e-5, 1e-4, "f32 sums of at most ~110 products");
    static final Tolerance F64 = Tolerance.of(1e-12, 0, "double sums in another order");

    /** Sums of K = Cin/g * taps products: f32 rounding grows with K, so the bound does too (2e-7 * K). */
    static Tolerance gemm(int k) {
        return Tolerance.of(2e-7 * k, 1e-4, "f32 GEMM sums of K = " + k + " products");
    }

    static OpFamily family() {
        List<OpCase> c = new ArrayList<>();
        c.add(conv("gemm2dSamePaddingBiasRagged", Op.Conv.of(2).withPads(1, 1), DType.F32, true, dims(2, 5, 13, 29),
                dims(17, 5, 3, 3), gemm(45)));
        c.add(conv("gemm2dStrideDilationAsymmetricPadsNoBias", Op.Conv.of(2).withStrides(2, 3).withDilations(2, 1)
                .withPads(2, 0, 1, 2), DType.F32, false, dims(1, 3, 17, 23), dims(20, 3, 3, 5), gemm(45)));
        c.add(conv("gemm2dGroups", Op.Conv.of(2).withGroups(2).withPads(1, 1), DType.F32, true, dims(2, 6, 9, 11),
                dims(32, 3, 3, 3), gemm(27)));
        // K = 64 * 9 = 576: a chunk holds a few output rows, so 20 rows take several chunks
        c.add(conv("gemmDeepInputManyChunks", Op.Conv.of(2).withPads(1, 1), DType.F32, true, dims(1, 64, 20, 30),
                dims(16, 64, 3, 3), gemm(576)));
        c.add(conv("gemm1d", Op.Conv.of(1).withStrides(2).withPads(1, 2), DType.F32, true, dims(2, 7, 31), dims(19, 7, 3),
                gemm(21)));
        c.add(conv("gemm3d", Op.Conv.of(3).withPads(1, 0, 1, 1, 0, 1), DType.F32, true, dims(1, 3, 5, 6, 7),
                dims(16, 3, 3, 2, 3), gemm(54)));
        // input rows as long as output rows: runs of consecutive rows copy at once, never across a depth plane
        c.add(conv("gemm3dSamePadding", Op.Conv.of(3).withPads(1, 1, 1, 1, 1, 1), DType.F32, true, dims(2, 4, 5, 6, 9),
                dims(16, 4, 3, 3, 3), gemm(108)));
        // fewer output positions than a micro-tile is wide, more channels: y^T = col^T . W^T (an STFT as a conv)
        c.add(conv("gemmFewPositions1dStride", Op.Conv.of(1).withStrides(4), DType.F32, true, dims(2, 3, 40),
                dims(37, 3, 16), gemm(48)));
        c.add(conv("gemmFewPositions2dGroupsNoBias", Op.Conv.of(2).withGroups(2), DType.F32, false, dims(1, 4, 5, 6),
                dims(40, 2, 3, 3), gemm(18)));
        c.add(conv("1dStrideAsymmetricPadsBias", Op.Conv.of(1).withStrides(2).withPads(1, 2), DType.F32, true,
                dims(2, 3, 11), dims(4, 3, 3), F32));
        c.add(conv("1dDilationNoBias", Op.Conv.of(1).withDilations(2).withPads(2), DType.F32, false, dims(2, 3, 13),
                dims(2, 3, 3), F32));
        // width 37, stride 1: whole-vector runs plus scalar tails
        c.add(conv("2dSamePaddingBias", Op.Conv.of(2).withPads(1, 1), DType.F32, true, dims(2, 3, 9, 37), dims(5, 3, 3, 3),
                F32));
        // pads: begins (h=1, w=0) then ends (h=2, w=1)
        c.add(conv("2dStrideAsymmetricPads", Op.Conv.of(2).withStrides(2, 3).withPads(1, 0, 2, 1), DType.F32, true,
                dims(2, 2, 10, 11), dims(3, 2, 3, 4), F32));
        c.add(conv("2dDilation", Op.Conv.of(2).withDilations(2, 3).withPads(2, 3), DType.F32, false, dims(1, 2, 9, 12),
                dims(3, 2, 3, 3), F32));
        c.add(conv("2dGroups", Op.Conv.of(2).withGroups(2).withPads(1, 1).withStrides(1, 2), DType.F32, true,
                dims(2, 4, 7, 9), dims(6, 2, 3, 3), F32));
        c.add(conv("2dDepthwise", Op.Conv.of(2).withGroups(4).withPads(1, 1).withStrides(2, 2), DType.F32, true,
                dims(2, 4, 9, 8), dims(4, 1, 3, 3), F32));
        c.add(conv("2dPointwise", Op.Conv.of(2), DType.F32, true, dims(2, 5, 4, 6), dims(3, 5, 1, 1), F32));
        c.add(conv("3d", Op.Conv.of(3).withStrides(1, 2, 1).withPads(1, 0, 1, 0, 1, 2).withDilations(1, 1, 2), DType.F32,
                true, dims(2, 2, 5, 6, 7), dims(3, 2, 2, 3, 3), F32));
        c.add(conv("3dGroupsDilation", Op.Conv.of(3).withGroups(3).withDilations(2, 1, 2).withPads(1, 1, 1),
                DType.F32, true, dims(1, 6, 5, 4, 7), dims(9, 2, 2, 3, 2), F32));
        // the direct loop over stride-split planes: depthwise 5x5 stride 2 with rows wider than four vectors,
        // a channel multiplier of 2, the first conv of an image model (3 input channels, stride 2, more than 16
        // outputs, which the GEMM would take), dilation with stride, 1-d depthwise, and a pointwise one
        c.add(conv("directDepthwise5x5Stride2Wide", Op.Conv.of(2).withGroups(3).withPads(2, 2).withStrides(2, 2),
                DType.F32, true, dims(2, 3, 11, 151), dims(3, 1, 5, 5), F32));
        c.add(conv("directDepthwiseMultiplierAsymmetric", Op.Conv.of(2).withGroups(3).withPads(0, 1, 2, 0)
                .withStrides(1, 3), DType.F32, false, dims(1, 3, 7, 13), dims(6, 1, 3, 3), F32));
        c.add(conv("directThreeChannelsStride2", Op.Conv.of(2).withPads(1, 1).withStrides(2, 2), DType.F32, true,
                dims(1, 3, 19, 37), dims(17, 3, 3, 3), gemm(27)));
        c.add(conv("directDilationStride", Op.Conv.of(2).withStrides(3, 2).withDilations(2, 3).withPads(2, 1, 1, 3),
                DType.F32, true, dims(2, 2, 13, 17), dims(5, 2, 3, 2), F32));
        c.add(conv("direct1dDepthwise", Op.Conv.of(1).withGroups(5).withStrides(2).withPads(3, 1), DType.F32, true,
                dims(2, 5, 71), dims(5, 1, 7), F32));
        c.add(conv("directGroupsFourPlusOne", Op.Conv.of(2).withGroups(2).withPads(1, 2, 0, 1), DType.F32, true,
                dims(2, 4, 9, 10), dims(10, 2, 3, 3), F32));
        c.add(conv("directPointwiseFewOutputs", Op.Conv.of(2), DType.F32, true, dims(1, 9, 5, 7), dims(7, 9, 1, 1),
                F32));
        c.add(conv("manyRowsRunParallel", Op.Conv.of(2).withPads(1, 1), DType.F32, true, dims(2, 4, 24, 24),
                dims(8, 4, 3, 3), F32));
        c.add(conv("2dEverything", Op.Conv.of(2).withStrides(2, 1).withPads(1, 0, 0, 2).withDilations(1, 2).withGroups(2),
                DType.F64, true, dims(2, 4, 8, 9), dims(4, 2, 3, 3), F64));
        c.add(conv("1dPadding", Op.Conv.of(1).withPads(1), DType.F64, false, dims(1, 2, 7), dims(3, 2, 3), F64));
        c.add(conv("oneByOne", Op.Conv.of(2), DType.F32, false, dims(1, 1, 1, 1), dims(1, 1, 1, 1), F32));
        // half tensors: operands exact in the half type, computed wider, the result rounded once
        for (DType t : new DType[] {DType.F16, DType.BF16}) {
            c.add(conv("2dStridePadding", Op.Conv.of(2).withPads(1, 1).withStrides(2, 1), t, true, dims(2, 3, 7, 6),
                    dims(4, 3, 3, 3), Tolerance.of(1e-5, t == DType.F16 ? 6e-4 : 4e-3, "computed wider, rounded once to " + t(t))));
        }
        convTranspose(c);
        return new OpFamily("conv", c);
    }

    private static OpCase conv(String name, Op.Conv spec, DType t, boolean bias, int[] xd, int[] wd, Tolerance tol) {
        return OpCase.named("conv_" + name + "_" + t(t) + "_x" + Shapes.dims(xd) + "_w" + Shapes.dims(wd))
                .graph(g -> {
                    Value x = g.input("x", of(t, xd));
                    Value w = g.input("w", of(t, wd));
                    g.setOutputs(g.conv(x, w, bias ? g.input("b", of(t, wd[0])) : null, spec));
                })
                .tolerance(t, tol)
                .build();
    }

    private static void convTranspose(List<OpCase> c) {
        c.add(convT("1dStridePadOutputPaddingBias", Op.ConvTranspose.of(1).withStrides(2).withPads(1, 0)
                .withOutputPadding(1), DType.F32, true, dims(2, 3, 5), dims(3, 2, 3)));
        // stride 1: contiguous runs on both sides, width 35 for tails
        c.add(convT("2dStrideOne", Op.ConvTranspose.of(2).withPads(1, 1), DType.F32, true, dims(2, 3, 6, 35),
                dims(3, 4, 3, 3)));
        c.add(convT("2dStridePadsOutputPadding", Op.ConvTranspose.of(2).withStrides(2, 3).withPads(1, 0, 0, 2)
                .withOutputPadding(1, 2), DType.F32, true, dims(2, 2, 4, 5), dims(2, 3, 3, 4)));
        c.add(convT("2dDilation", Op.ConvTranspose.of(2).withStrides(2, 2).withDilations(2, 3).withPads(1, 2), DType.F32,
                false, dims(1, 2, 5, 4), dims(2, 2, 3, 2)));
        c.add(convT("2dGroups", Op.ConvTranspose.of(2).withGroups(2).withStrides(2, 2).withPads(1, 1), DType.F32, true,
                dims(2, 4, 5, 5), dims(4, 3, 3, 3)));
        c.add(convT("3d", Op.ConvTranspose.of(3).withStrides(2, 1, 2).withPads(0, 1, 1, 1, 0, 0).withOutputPadding(1, 0, 1),
                DType.F32, true, dims(1, 2, 3, 4, 3), dims(2, 2, 2, 3, 2)));
        c.add(convT("2dEverything", Op.ConvTranspose.of(2).withStrides(2, 2).withPads(1, 0, 0, 1).withOutputPadding(1, 1)
                .withGroups(2), DType.F64, true, dims(2, 4, 4, 3), dims(4, 2, 3, 3)));
        c.add(convT("2dStrideThree", Op.ConvTranspose.of(2).withStrides(3, 2).withPads(0, 1), DType.F16, true,
                dims(1, 3, 4, 5), dims(3, 2, 2, 3)));
        // kernel = stride, unpadded (2x2 stride-2 upsampling): one GEMM scattered onto the grid; odd sizes, several
        // row blocks (13 * 4 = 52 rows of W^T) and position blocks (47 * 45 = 2115 positions), groups, 3x2 taps
        c.add(convT("2dKernelIsStrideBias", Op.ConvTranspose.of(2).withStrides(2, 2), DType.F32, true, dims(2, 7, 5, 9),
                dims(7, 5, 2, 2)));
        c.add(convT("2dKernelIsStrideBlocks", Op.ConvTranspose.of(2).withStrides(2, 2), DType.F32, true,
                dims(1, 11, 47, 45), dims(11, 13, 2, 2)));
        c.add(convT("2dKernelIsStrideGroupsNoBias", Op.ConvTranspose.of(2).withStrides(3, 2).withGroups(2), DType.F32,
                false, dims(2, 6, 5, 7), dims(6, 2, 3, 2)));
    }

    private static OpCase convT(String name, Op.ConvTranspose spec, DType t, boolean bias, int[] xd, int[] wd) {
        return OpCase.named("convTranspose_" + name + "_" + t(t) + "_x" + Shapes.dims(xd) + "_w" + Shapes.dims(wd))
                .graph(g -> {
                    Value x = g.input("x", of(t, xd));
                    Value w = g.input("w", of(t, wd));
                    g.setOutputs(g.convTranspose(x, w, bias ? g.input("b", of(t, wd[1] * spec.groups())) : null, spec));
                })
                .tolerance(DType.F32, F32)
                .tolerance(DType.F64, F64)
                .tolerance(DType.F16, Tolerance.of(1e-5, 6e-4, "computed wider, rounded once to f16"))
                .build();
    }

    private static int[] dims(int... d) {
        return d;
    }
}
