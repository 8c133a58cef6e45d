package dev.rlx.cpu;

import dev.rlx.testkit.Close;
import dev.rlx.testkit.reference.NnReference;
import dev.rlx.testkit.reference.Ref;
import dev.rlx.cpu.testing.Runner;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.HeadLayout;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The CPU rope kernel against {@link NnReference#rope} on random data and random (not unit-norm) tables. */
class RopeKernelTest {
    /** f32: two products and one add per output, each rounded once in f32 (|x|, |table| < 1): ~2e-7 at worst. */
    private static final double F32_ATOL = 1e-6;
    private static final double F32_RTOL = 1e-5;
    private static final double F64_ATOL = 1e-14;

    /**
     * Runs rope on x {@code [B, S, H, D]} (fed in the spec's layout, rank 3 when asked) with tables of
     * {@code tableDims}, and checks it against the reference.
     */
    private static void check(Op.Rope spec, int batch, int seq, int heads, DType dt, boolean rank3, long seed,
                              int... tableDims) {
        Random r = new Random(seed);
        int d = spec.headDim();
        Ref x = Ref.random(r, -1, 1, batch, seq, heads, d);
        Ref cos = Ref.random(r, -1, 1, tableDims);
        Ref sin = Ref.random(r, -1, 1, tableDims);
        boolean bhsd = spec.layout() == HeadLayout.BHSD;
        Shape xs = bhsd ? Shape.of(dt, batch, heads, seq, d)
                : rank3 ? Shape.of(dt, batch, seq, heads * d) : Shape.of(dt, batch, seq, heads, d);
        Graph g = new Graph("rope");
        Value xv = g.input("x", xs);
        Value cv = g.input("cos", Shape.of(dt, tableDims));
        Value sv = g.input("sin", Shape.of(dt, tableDims));
        g.setOutputs(g.rope(xv, cv, sv, spec));
        Ref fedX = bhsd ? NnReference.swapSeqHeads(x) : x;
        double[] out = Runner.run(g, Map.of("x", fedX.data(), "cos", cos.data(), "sin", sin.data())).get(0);

        Ref expected = NnReference.rope(x, cos, sin, spec);
        Ref actual = bhsd ? NnReference.swapSeqHeads(new Ref(new int[] {batch, heads, seq, d}, out))
                : new Ref(expected.dims(), out);
        boolean f32 = dt == DType.F32;
        Close.assertClose(expected.data(), actual.data(), f32 ? F32_ATOL : F64_ATOL, f32 ? F32_RTOL : 0,
                "rope " + spec + " " + dt);
    }

    @Test
    void rope_rotateHalf() {
        // headDim 40: 20 pairs per head, so both the vector loop and its scalar tail run
        check(new Op.Rope(40, 40, false, HeadLayout.BSHD), 2, 5, 3, DType.F32, false, 1, 5, 20);
    }

    @Test
    void rope_interleaved() {
        check(new Op.Rope(16, 16, true, HeadLayout.BSHD), 2, 5, 3, DType.F32, false, 2, 5, 8);
    }

    @Test
    void rope_partialRotateHalf() {
        check(new Op.Rope(24, 8, false, HeadLayout.BSHD), 2, 4, 2, DType.F32, true, 3, 4, 4);
    }

    @Test
    void rope_partialInterleaved() {
        check(new Op.Rope(20, 12, true, HeadLayout.BSHD), 1, 6, 2, DType.F32, false, 4, 6, 6);
    }

    @Test
    void rope_rank3Layout() {
        check(new Op.Rope(32, 32, false, HeadLayout.BSHD), 2, 3, 4, DType.F32, true, 5, 3, 16);
    }

    @Test
    void rope_bhsdLayout() {
        check(new Op.Rope(32, 16, false, HeadLayout.BHSD), 2, 5, 3, DType.F32, false, 6, 5, 8);
        check(new Op.Rope(12, 12, true, HeadLayout.BHSD), 2, 5, 3, DType.F32, false, 7, 5, 6);
    }

    @Test
    void rope_perBatchTables() {
        check(new Op.Rope(32, 32, false, HeadLayout.BSHD), 3, 4, 2, DType.F32, false, 8, 3, 4, 16);
        check(new Op.Rope(8, 8, true, HeadLayout.BHSD), 3, 4, 2, DType.F32, false, 9, 3, 4, 4);
    }

    @Test
    void rope_f64() {
        check(new Op.Rope(24, 16, false, HeadLayout.BSHD), 2, 4, 3, DType.F64, true, 10, 2, 4, 8);
        check(new Op.Rope(10, 6, true, HeadLayout.BHSD), 2, 4, 3, DType.F64, false, 11, 4, 3);
    }

    @Test
    void rope_manyRowsRunParallel() {
        check(new Op.Rope(64, 64, false, HeadLayout.BSHD), 2, 128, 8, DType.F32, false, 12, 128, 32);
    }
}
