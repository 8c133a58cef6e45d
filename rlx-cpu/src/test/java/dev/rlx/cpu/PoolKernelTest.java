package dev.rlx.cpu;

import dev.rlx.testkit.Close;
import dev.rlx.testkit.reference.NnReference;
import dev.rlx.testkit.reference.Ref;
import dev.rlx.cpu.testing.Runner;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The CPU pooling kernel against {@link NnReference#pool} on random data. */
class PoolKernelTest {
    /** The kernel sums in double and rounds once to f32: max error half an f32 ulp of values below 2. */
    private static final double F32_ATOL = 1e-6;
    private static final double F64_ATOL = 1e-14;

    private static void check(Op.Pool spec, DType dt, double lo, double hi, long seed, int... xDims) {
        Ref x = Ref.random(new Random(seed), lo, hi, xDims);
        Graph g = new Graph("pool");
        Value xv = g.input("x", Shape.of(dt, xDims));
        g.setOutputs(g.pool(xv, spec));
        double[] out = Runner.run(g, Map.of("x", x.data())).get(0);
        Close.assertClose(NnReference.pool(x, spec).data(), out, dt == DType.F32 ? F32_ATOL : F64_ATOL, 0,
                "pool " + spec + " " + dt);
    }

    private static Op.Pool max(int... kernel) {
        return Op.Pool.of(Op.Pool.Kind.MAX, kernel);
    }

    private static Op.Pool avg(int... kernel) {
        return Op.Pool.of(Op.Pool.Kind.AVG, kernel);
    }

    // ---------------------------------------------------------------- max

    @Test
    void pool_max2d() {
        check(max(2, 2), DType.F32, -1, 1, 1, 2, 3, 8, 10);
    }

    @Test
    void pool_maxSkipsPadding() {
        // all inputs negative: a padding cell read as 0 would win every border window
        check(max(3, 3).withStrides(2, 2).withPads(1, 1), DType.F32, -2, -1, 2, 2, 2, 7, 8);
    }

    @Test
    void pool_maxCeilMode() {
        check(max(3, 3).withStrides(2, 2).withCeilMode(true), DType.F32, -2, -1, 3, 1, 2, 8, 9);
    }

    @Test
    void pool_maxCeilModeWithPadding() {
        // the last window may not start in the end padding: 5 + 1 + 1 - 2 = 5 -> ceil(5/2) + 1 = 4, dropped to 3
        check(max(2, 2).withStrides(2, 2).withPads(1, 1, 1, 1).withCeilMode(true), DType.F32, -2, -1, 4, 1, 2, 5, 5);
    }

    @Test
    void pool_maxDilation() {
        check(max(2, 3).withStrides(1, 2).withDilations(2, 2).withPads(1, 0, 0, 2), DType.F32, -1, 1, 5, 2, 2, 9, 10);
    }

    // ---------------------------------------------------------------- avg

    @Test
    void pool_avg2d() {
        check(avg(2, 2), DType.F32, -1, 1, 10, 2, 3, 8, 10);
    }

    @Test
    void pool_avgCountIncludePad() {
        check(avg(3, 3).withStrides(2, 2).withPads(1, 1).withCountIncludePad(true), DType.F32, -1, 1, 11, 2, 2, 7, 8);
    }

    @Test
    void pool_avgExcludePad() {
        check(avg(3, 3).withStrides(2, 2).withPads(1, 1).withCountIncludePad(false), DType.F32, -1, 1, 12, 2, 2, 7, 8);
    }

    @Test
    void pool_avgCeilModeBothCounts() {
        // ceilMode windows run past the end padding: those cells count in neither mode
        Op.Pool p = avg(3, 3).withStrides(2, 2).withPads(1, 0, 0, 1).withCeilMode(true);
        check(p.withCountIncludePad(true), DType.F32, -1, 1, 13, 1, 2, 8, 9);
        check(p.withCountIncludePad(false), DType.F32, -1, 1, 14, 1, 2, 8, 9);
    }

    @Test
    void pool_avgDilation() {
        Op.Pool p = avg(2, 2).withDilations(2, 3).withPads(1, 1);
        check(p.withCountIncludePad(true), DType.F32, -1, 1, 15, 1, 2, 7, 9);
        check(p.withCountIncludePad(false), DType.F32, -1, 1, 16, 1, 2, 7, 9);
    }

    // ---------------------------------------------------------------- ranks, dtypes, size

    @Test
    void pool_1d() {
        check(max(3).withStrides(2).withPads(1, 0).withCeilMode(true), DType.F32, -1, 1, 20, 2, 3, 10);
        check(avg(3).withStrides(2).withPads(1).withCountIncludePad(false), DType.F32, -1, 1, 21, 2, 3, 10);
    }

    @Test
    void pool_3d() {
        check(max(2, 2, 3).withStrides(1, 2, 2).withPads(0, 1, 1, 1, 0, 1), DType.F32, -1, 1, 22, 1, 2, 4, 6, 7);
        check(avg(2, 3, 2).withStrides(2, 1, 2).withPads(1, 1, 0, 0, 1, 1).withCeilMode(true)
                .withCountIncludePad(true), DType.F32, -1, 1, 23, 1, 2, 5, 6, 7);
    }

    @Test
    void pool_f64() {
        check(max(3, 3).withStrides(2, 2).withPads(1, 1).withCeilMode(true), DType.F64, -2, -1, 30, 2, 2, 8, 9);
        check(avg(3, 2).withStrides(2, 1).withPads(1, 0, 1, 1).withCountIncludePad(false), DType.F64, -1, 1, 31, 2, 2,
                8, 9);
    }

    @Test
    void pool_manyRowsRunParallel() {
        check(max(2, 2), DType.F32, -1, 1, 40, 4, 16, 32, 32);
    }
}
