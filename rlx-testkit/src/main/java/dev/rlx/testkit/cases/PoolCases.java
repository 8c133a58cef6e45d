package dev.rlx.testkit.cases;

import static dev.rlx.testkit.cases.Shapes.of;
import static dev.rlx.testkit.cases.Shapes.t;

import dev.rlx.ir.DType;
import dev.rlx.ir.Op;
import dev.rlx.testkit.Data;
import dev.rlx.testkit.OpCase;
import dev.rlx.testkit.OpFamily;
import dev.rlx.testkit.Tolerance;
import java.util.ArrayList;
import java.util.List;

/**
 * Max and average pooling with 1 to 3 spatial dims: padding (which MAX skips: inputs are negative so a padding
 * cell read as 0 would win), ceil mode (a last window may not start in the end padding), dilation, both AVG
 * counting rules. Sums are in double and rounded once: half an f32 ulp of values below 2.
 */
final class PoolCases {
    private PoolCases() {}

    static OpFamily family() {
        List<OpCase> c = new ArrayList<>();
        Data unit = Data.uniform(-1, 1);
        Data negative = Data.uniform(-2, -1);
        c.add(pool("max2d", max(2, 2), DType.F32, unit, 2, 3, 8, 10));
        c.add(pool("maxSkipsPadding", max(3, 3).withStrides(2, 2).withPads(1, 1), DType.F32, negative, 2, 2, 7, 8));
        c.add(pool("maxCeilMode", max(3, 3).withStrides(2, 2).withCeilMode(true), DType.F32, negative, 1, 2, 8, 9));
        // 5 + 1 + 1 - 2 = 5 -> ceil(5/2) + 1 = 4 windows, the last starting in the end padding: dropped to 3
        c.add(pool("maxCeilModeWithPadding", max(2, 2).withStrides(2, 2).withPads(1, 1, 1, 1).withCeilMode(true), DType.F32,
                negative, 1, 2, 5, 5));
        c.add(pool("maxDilation", max(2, 3).withStrides(1, 2).withDilations(2, 2).withPads(1, 0, 0, 2), DType.F32, unit, 2,
                2, 9, 10));
        c.add(pool("avg2d", avg(2, 2), DType.F32, unit, 2, 3, 8, 10));
        Op.Pool padded = avg(3, 3).withStrides(2, 2).withPads(1, 1);
        c.add(pool("avgCountIncludePad", padded.withCountIncludePad(true), DType.F32, unit, 2, 2, 7, 8));
        c.add(pool("avgExcludePad", padded.withCountIncludePad(false), DType.F32, unit, 2, 2, 7, 8));
        // ceil-mode windows run past the end padding: those cells count in neither mode
        Op.Pool ceil = avg(3, 3).withStrides(2, 2).withPads(1, 0, 0, 1).withCeilMode(true);
        c.add(pool("avgCeilModeCountIncludePad", ceil.withCountIncludePad(true), DType.F32, unit, 1, 2, 8, 9));
        c.add(pool("avgCeilModeExcludePad", ceil.withCountIncludePad(false), DType.F32, unit, 1, 2, 8, 9));
        Op.Pool dilated = avg(2, 2).withDilations(2, 3).withPads(1, 1);
        c.add(pool("avgDilationCountIncludePad", dilated.withCountIncludePad(true), DType.F32, unit, 1, 2, 7, 9));
        c.add(pool("avgDilationExcludePad", dilated.withCountIncludePad(false), DType.F32, unit, 1, 2, 7, 9));
        c.add(pool("max1dCeilMode", max(3).withStrides(2).withPads(1, 0).withCeilMode(true), DType.F32, unit, 2, 3, 10));
        c.add(pool("avg1dExcludePad", avg(3).withStrides(2).withPads(1).withCountIncludePad(false), DType.F32, unit, 2, 3, 10));
        c.add(pool("max3d", max(2, 2, 3).withStrides(1, 2, 2).withPads(0, 1, 1, 1, 0, 1), DType.F32, unit, 1, 2, 4, 6, 7));
        c.add(pool("avg3dCeilModeCountIncludePad", avg(2, 3, 2).withStrides(2, 1, 2).withPads(1, 1, 0, 0, 1, 1)
                .withCeilMode(true).withCountIncludePad(true), DType.F32, unit, 1, 2, 5, 6, 7));
        c.add(pool("maxCeilModePadded", max(3, 3).withStrides(2, 2).withPads(1, 1).withCeilMode(true), DType.F64, negative, 2,
                2, 8, 9));
        c.add(pool("avgExcludePadAsymmetric", avg(3, 2).withStrides(2, 1).withPads(1, 0, 1, 1).withCountIncludePad(false),
                DType.F64, unit, 2, 2, 8, 9));
        c.add(pool("maxManyRowsRunParallel", max(2, 2), DType.F32, unit, 4, 16, 32, 32));
        c.add(pool("avgManyRowsRunParallel", avg(3, 3).withStrides(1, 1).withPads(1, 1), DType.F32, unit, 4, 16, 32, 33));
        c.add(pool("maxSkipsPadding", max(3, 3).withStrides(2, 2).withPads(1, 1), DType.F16, negative, 1, 2, 7, 8));
        c.add(pool("avgCountIncludePad", padded.withCountIncludePad(true), DType.BF16, unit, 1, 2, 7, 8));
        c.add(pool("maxWholeInput", max(1, 1), DType.F32, unit, 1, 1, 1, 1));
        // the CPU's f32 MAX forms: 2-wide w windows folded in pairs (odd sizes drop the last cell), other full-run
        // w windows tap by tap, and padded w windows run by run
        c.add(pool("max2x2Stride2OddSizes", max(2, 2).withStrides(2, 2), DType.F32, unit, 1, 3, 9, 13));
        c.add(pool("max1x2Stride2", max(1, 2).withStrides(1, 2), DType.F32, unit, 2, 5, 7, 11));
        c.add(pool("max3x3Stride1", max(3, 3), DType.F32, unit, 1, 3, 7, 9));
        c.add(pool("max3Stride2PaddedW", max(1, 3).withStrides(1, 2).withPads(0, 1, 0, 1), DType.F32, negative, 1, 3, 5, 11));
        return new OpFamily("pool", c);
    }

    private static Op.Pool max(int... kernel) {
        return Op.Pool.of(Op.Pool.Kind.MAX, kernel);
    }

    private static Op.Pool avg(int... kernel) {
        return Op.Pool.of(Op.Pool.Kind.AVG, kernel);
    }

    private static OpCase pool(String name, Op.Pool spec, DType t, Data data, int... xd) {
        return OpCase.named("pool_" + name + "_" + t(t) + "_" + Shapes.dims(xd))
                .graph(g -> g.setOutputs(g.pool(g.input("x", of(t, xd)), spec)))
                .data("x", data)
                .tolerance(DType.F32, spec.op() == Op.Pool.Kind.MAX ? Tolerance.exact("max selects an element")
                        : Tolerance.of(1e-6, 0, "a sum in double rounded once to f32: half an ulp of values below 2"))
                .tolerance(DType.F64, Tolerance.of(1e-14, 0, "double"))
                .tolerance(DType.F16, Tolerance.of(0, 1e-3, "one f16 rounding"))
                .tolerance(DType.BF16, Tolerance.of(0, 8e-3, "one bf16 rounding"))
                .build();
    }
}
