package dev.rlx.cpu;

import dev.rlx.testkit.reference.AxisRef;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rlx.testkit.reference.Ref;
import dev.rlx.cpu.testing.Runner;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Top-k against a reference that repeatedly selects the best remaining element (NaN most extreme, then by
 * value, ties to the smaller index). Values are copied, not computed, so everything must match exactly.
 */
class TopKKernelTest {
    private final Random rnd = new Random(5);

    /**
     * Returns {values, indices} laid out like the op's outputs (k along the axis), by repeated selection of
     * the best element not yet taken.
     */
    static double[][] reference(Ref x, int k, int axis, boolean largest) {
        int[][] lines = AxisRef.lines(x.dims(), axis);
        int[][] outLines = AxisRef.lines(AxisRef.withDim(x.dims(), axis, k), axis);
        double[] values = new double[lines.length * k];
        double[] indices = new double[lines.length * k];
        for (int l = 0; l < lines.length; l++) {
            int[] line = lines[l];
            boolean[] taken = new boolean[line.length];
            for (int i = 0; i < k; i++) {
                int best = -1;
                for (int j = 0; j < line.length; j++) {
                    if (!taken[j] && (best < 0 || ranksBefore(x.data()[line[j]], x.data()[line[best]], largest))) {
                        best = j; // scanning in index order, so among equals the smaller index stays
                    }
                }
                taken[best] = true;
                values[outLines[l][i]] = x.data()[line[best]];
                indices[outLines[l][i]] = best;
            }
        }
        return new double[][] {values, indices};
    }

    /** Whether {@code a} ranks strictly before {@code b}: NaN first, then by value; -0 equals 0. */
    private static boolean ranksBefore(double a, double b, boolean largest) {
        if (Double.isNaN(a) || Double.isNaN(b)) {
            return Double.isNaN(a) && !Double.isNaN(b);
        }
        return largest ? a > b : a < b;
    }

    private static void check(DType t, Ref x, int k, int axis, boolean largest) {
        int a = axis < 0 ? axis + x.rank() : axis;
        Graph g = new Graph("topk");
        Value in = g.input("x", Shape.of(t, x.dims()));
        List<Value> out = g.topK(in, k, axis, largest);
        assertArrayEquals(AxisRef.withDim(x.dims(), a, k), out.get(0).shape().dims());
        assertEquals(DType.I64, out.get(1).dtype());
        g.setOutputs(out.toArray(Value[]::new));
        List<double[]> got = Runner.run(g, Map.of("x", x));
        double[][] want = reference(x, k, a, largest);
        String what = "top_k " + t + " k=" + k + " axis " + axis + (largest ? " largest" : " smallest");
        assertArrayEquals(want[0], got.get(0), what + " values");
        assertArrayEquals(want[1], got.get(1), what + " indices");
    }

    @Test
    void topK_lastAxis() {
        Ref x = Ref.random(rnd, -1, 1, 6, 50);
        check(DType.F32, x, 5, -1, true);
        check(DType.F32, x, 5, -1, false);
    }

    @Test
    void topK_nonLastAxis() {
        Ref x = Ref.random(rnd, -1, 1, 4, 9, 3);
        check(DType.F32, x, 4, 1, true);
        check(DType.F32, x, 2, 0, false);
    }

    @Test
    void topK_tiesGoToSmallerIndex() {
        Ref x = Ref.randomInts(rnd, 0, 4, 5, 30);
        check(DType.F32, x, 12, 1, true);
        check(DType.F32, x, 12, 1, false);
        check(DType.I32, x, 4, 0, true);
    }

    @Test
    void topK_negativeZeroTiesWithZero() {
        Ref x = new Ref(new int[] {1, 4}, new double[] {-0.0, 0.0, -1, -0.0});
        check(DType.F32, x, 3, 1, true);
    }

    @Test
    void topK_kEqualsLengthSortsAll() {
        Ref x = Ref.random(rnd, -1, 1, 3, 17);
        check(DType.F32, x, 17, 1, true);
        check(DType.F32, x, 17, 1, false);
    }

    @Test
    void topK_kZeroAndSizeOne() {
        check(DType.F32, Ref.random(rnd, -1, 1, 3, 8), 0, 1, true);
        check(DType.F32, Ref.random(rnd, -1, 1, 3, 1), 1, 1, true);
    }

    @Test
    void topK_nanRanksFirst() {
        Ref x = Ref.random(rnd, -1, 1, 2, 10);
        x.set(Double.NaN, 0, 6);
        x.set(Double.NaN, 0, 2);
        check(DType.F32, x, 3, 1, true);
        check(DType.F32, x, 3, 1, false);
    }

    @Test
    void topK_otherDtypes() {
        Ref x = Ref.random(rnd, -1, 1, 4, 21);
        check(DType.F64, x, 6, 1, true);
        check(DType.F16, x.map(AxisRef::f16), 3, 0, false);
        check(DType.I64, Ref.randomInts(rnd, -50, 50, 4, 21), 6, 1, false);
        check(DType.U8, Ref.randomInts(rnd, 0, 256, 4, 21), 6, 1, true);
    }

    /** I64 values past 2^53 keep every bit: they are compared as longs and copied as bytes. */
    @Test
    void topK_i64BeyondDoublePrecision() {
        long big = 1L << 60;
        long[] x = {big + 1, big + 3, big + 2, Long.MIN_VALUE, big + 3};
        Graph g = new Graph("topk");
        Value in = g.input("x", Shape.of(DType.I64, 5));
        g.setOutputs(g.topK(in, 3, 0, true).toArray(Value[]::new));
        try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(g)) {
            c.setInput("x", x);
            c.run();
            long[] values = new long[3];
            long[] indices = new long[3];
            c.output(0).copyTo(values);
            c.output(1).copyTo(indices);
            assertArrayEquals(new long[] {big + 3, big + 3, big + 2}, values);
            assertArrayEquals(new long[] {1, 4, 2}, indices);
        }
    }

    /** Vocabulary-sized rows, enough work to split across threads. */
    @Test
    void topK_largeRows() {
        Ref x = Ref.random(rnd, -1, 1, 16, 32000);
        check(DType.F32, x, 50, 1, true);
    }
}
