package dev.rlx.cpu;

import dev.rlx.testkit.reference.AxisRef;
import static dev.rlx.testkit.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.cpu.kernels.IndexOutOfRangeException;
import dev.rlx.testkit.reference.Ref;
import dev.rlx.cpu.testing.Runner;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Gather and scatter-add against plain-loop references. Gather copies elements, so it must match exactly.
 * Scatter-add sums at most a handful of f32 updates per element in float: atol 1e-6, rtol 1e-6; integers
 * and F64 exactly (or 1e-12).
 */
class IndexKernelsTest {
    private final Random rnd = new Random(9);

    // ---------------------------------------------------------------- references

    /** {@code out[a.., i.., b..] = data[a.., idx[i..], b..]}, negative indices counting from the end. */
    static double[] gatherReference(Ref data, Ref idx, int axis) {
        int outer = 1;
        for (int d = 0; d < axis; d++) {
            outer *= data.dims()[d];
        }
        int n = data.dims()[axis];
        int inner = data.size() / Math.max(1, outer * n);
        double[] out = new double[outer * idx.size() * inner];
        for (int o = 0; o < outer; o++) {
            for (int i = 0; i < idx.size(); i++) {
                int v = (int) idx.data()[i];
                int row = v < 0 ? v + n : v;
                for (int k = 0; k < inner; k++) {
                    out[(o * idx.size() + i) * inner + k] = data.data()[(o * n + row) * inner + k];
                }
            }
        }
        return out;
    }

    /** data with, at every position p of idx, upd[p] added where coordinate {@code axis} is idx[p]. */
    static double[] scatterAddReference(Ref data, Ref idx, Ref upd, int axis, boolean wrapI32) {
        double[] out = data.data().clone();
        long[] lout = new long[out.length];
        for (int i = 0; i < out.length; i++) {
            lout[i] = (long) out[i];
        }
        for (int p = 0; p < idx.size(); p++) {
            int[] c = idx.unravel(p);
            int v = (int) idx.data()[p];
            c[axis] = v < 0 ? v + data.dims()[axis] : v;
            int at = data.flat(c);
            out[at] += upd.data()[p];
            lout[at] += (long) upd.data()[p];
        }
        if (wrapI32) {
            for (int i = 0; i < out.length; i++) {
                out[i] = (int) lout[i];
            }
        }
        return out;
    }

    // ---------------------------------------------------------------- runners

    private static double[] gather(DType t, Ref data, DType it, Ref idx, int axis) {
        Graph g = new Graph("gather");
        Value d = g.input("data", Shape.of(t, data.dims()));
        Value i = g.input("idx", Shape.of(it, idx.dims()));
        g.setOutputs(g.gather(d, i, axis));
        return Runner.run(g, Map.of("data", data, "idx", idx)).get(0);
    }

    private static void checkGather(DType t, Ref data, DType it, Ref idx, int axis) {
        int a = axis < 0 ? axis + data.rank() : axis;
        assertArrayEquals(gatherReference(data, idx, a), gather(t, data, it, idx, axis),
                "gather " + t + " axis " + axis + " indices " + it);
    }

    private static double[] scatterAdd(DType t, Ref data, DType it, Ref idx, Ref upd, int axis) {
        Graph g = new Graph("scatter_add");
        Value d = g.input("data", Shape.of(t, data.dims()));
        Value i = g.input("idx", Shape.of(it, idx.dims()));
        Value u = g.input("upd", Shape.of(t, upd.dims()));
        g.setOutputs(g.scatterAdd(d, i, u, axis));
        return Runner.run(g, Map.of("data", data, "idx", idx, "upd", upd)).get(0);
    }

    private static void checkScatterAdd(DType t, Ref data, DType it, Ref idx, Ref upd, int axis, double tol) {
        int a = axis < 0 ? axis + data.rank() : axis;
        assertClose(scatterAddReference(data, idx, upd, a, t == DType.I32), scatterAdd(t, data, it, idx, upd, axis),
                tol, tol, "scatter_add " + t + " axis " + axis);
    }

    // ---------------------------------------------------------------- gather

    @Test
    void gather_embeddingRows() {
        Ref table = Ref.random(rnd, -1, 1, 10, 8);
        checkGather(DType.F32, table, DType.I64, Ref.randomInts(rnd, 0, 10, 3, 4), 0);
        checkGather(DType.F32, table, DType.I32, Ref.randomInts(rnd, 0, 10, 7), 0);
    }

    @Test
    void gather_middleAndLastAxis() {
        Ref data = Ref.random(rnd, -1, 1, 3, 5, 4);
        checkGather(DType.F32, data, DType.I32, Ref.randomInts(rnd, 0, 5, 2, 3), 1);
        checkGather(DType.F32, data, DType.I64, Ref.randomInts(rnd, 0, 4, 6), -1);
    }

    @Test
    void gather_negativeIndices() {
        Ref data = Ref.random(rnd, -1, 1, 5, 3);
        checkGather(DType.F32, data, DType.I64, Ref.randomInts(rnd, -5, 5, 8), 0);
        checkGather(DType.F32, data, DType.I32, Ref.randomInts(rnd, -3, 3, 2, 2), 1);
    }

    @Test
    void gather_scalarIndexDropsTheAxis() {
        Ref data = Ref.random(rnd, -1, 1, 4, 6);
        Ref idx = new Ref(new int[] {}, new double[] {-2});
        checkGather(DType.F32, data, DType.I64, idx, 1);
    }

    @Test
    void gather_anyDtypeCopiesElements() {
        Ref idx = Ref.randomInts(rnd, -6, 6, 9);
        checkGather(DType.I64, Ref.randomInts(rnd, -1000, 1000, 6, 5), DType.I64, idx, 0);
        checkGather(DType.F16, Ref.random(rnd, -1, 1, 6, 5).map(AxisRef::f16), DType.I32, idx, 0);
        checkGather(DType.U8, Ref.randomInts(rnd, 0, 256, 3, 6), DType.I64, idx, 1);
        checkGather(DType.BOOL, Ref.randomInts(rnd, 0, 2, 6, 5), DType.I32, idx, 0);
        checkGather(DType.F64, Ref.random(rnd, -1, 1, 2, 6, 3), DType.I64, idx, 1);
    }

    @Test
    void gather_emptyIndices() {
        Ref data = Ref.random(rnd, -1, 1, 4, 6);
        checkGather(DType.F32, data, DType.I64, Ref.zeros(0), 0);
    }

    @Test
    void gather_outOfRangeThrowsNamingNodeAndIndex() {
        Graph g = new Graph("gather");
        Value d = g.input("data", Shape.of(DType.F32, 5, 4));
        Value i = g.input("idx", Shape.of(DType.I64, 2, 3));
        g.setOutputs(g.name(g.gather(d, i, 0), "lookup"));
        try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(g)) {
            c.setInput("data", new float[20]);
            c.setInput("idx", new long[] {0, 1, 2, 4, 5, 3}); // 5 at position [1, 1] is one past the end
            IndexOutOfRangeException e = assertThrows(IndexOutOfRangeException.class, c::run);
            assertTrue(e.getMessage().contains("gather 'lookup'"), e.getMessage());
            assertTrue(e.getMessage().contains("index 5 at [1, 1]"), e.getMessage());
            assertTrue(e.getMessage().contains("-5 <= index < 5"), e.getMessage());
            c.setInput("idx", new long[] {0, 1, 2, 4, -6, 3});
            IndexOutOfRangeException neg = assertThrows(IndexOutOfRangeException.class, c::run);
            assertTrue(neg.getMessage().contains("index -6 at [1, 1]"), neg.getMessage());
            // a corrected index runs again
            c.setInput("idx", new long[] {0, 1, 2, 4, -5, 3});
            c.run();
        }
    }

    /** The bad index lies in the half a worker thread takes: its exception still reaches the caller. */
    @Test
    void gather_outOfRangeOnWorkerThreadThrows() {
        Graph g = new Graph("gather");
        Value d = g.input("data", Shape.of(DType.F32, 4096, 64));
        Value i = g.input("idx", Shape.of(DType.I32, 4096));
        g.setOutputs(g.gather(d, i, 0));
        try (Session s = new Session(Device.CPU, CompileOptions.defaults().withThreads(2));
             CompiledGraph c = s.compile(g)) {
            c.setInput("data", new float[4096 * 64]);
            int[] idx = new int[4096];
            idx[4000] = 4096;
            c.setInput("idx", idx);
            IndexOutOfRangeException e = assertThrows(IndexOutOfRangeException.class, c::run);
            assertTrue(e.getMessage().contains("index 4096 at [4000]"), e.getMessage());
            idx[4000] = -4096;
            c.setInput("idx", idx);
            c.run(); // the pool is fine afterwards
        }
    }

    @Test
    void gather_large() {
        Ref table = Ref.random(rnd, -1, 1, 8000, 256);
        checkGather(DType.F32, table, DType.I32, Ref.randomInts(rnd, -8000, 8000, 4096), 0);
        checkGather(DType.F32, Ref.random(rnd, -1, 1, 512, 300), DType.I64, Ref.randomInts(rnd, 0, 300, 200), 1);
    }

    // ---------------------------------------------------------------- scatter-add

    @Test
    void scatterAdd_duplicateIndicesAccumulate() {
        Ref data = Ref.random(rnd, -1, 1, 5, 3);
        Ref idx = new Ref(new int[] {4, 3}, new double[] {1, 1, 1, 1, 1, 1, 4, 0, 1, 4, 0, 1});
        checkScatterAdd(DType.F32, data, DType.I64, idx, Ref.random(rnd, -1, 1, 4, 3), 0, 1e-6);
    }

    @Test
    void scatterAdd_innerAxis() {
        Ref data = Ref.random(rnd, -1, 1, 3, 4, 5);
        checkScatterAdd(DType.F32, data, DType.I32, Ref.randomInts(rnd, 0, 4, 3, 6, 5), Ref.random(rnd, -1, 1, 3, 6, 5),
                1, 1e-6);
        checkScatterAdd(DType.F32, data, DType.I64, Ref.randomInts(rnd, 0, 5, 3, 4, 9), Ref.random(rnd, -1, 1, 3, 4, 9),
                -1, 1e-6);
    }

    @Test
    void scatterAdd_indicesSmallerThanData() {
        Ref data = Ref.random(rnd, -1, 1, 4, 6);
        checkScatterAdd(DType.F32, data, DType.I64, Ref.randomInts(rnd, 0, 6, 2, 3), Ref.random(rnd, -1, 1, 2, 3), 1,
                1e-6);
    }

    @Test
    void scatterAdd_negativeIndices() {
        Ref data = Ref.random(rnd, -1, 1, 4, 6);
        checkScatterAdd(DType.F32, data, DType.I64, Ref.randomInts(rnd, -4, 4, 5, 6), Ref.random(rnd, -1, 1, 5, 6), 0,
                1e-6);
    }

    @Test
    void scatterAdd_otherDtypes() {
        Ref idx = Ref.randomInts(rnd, -4, 4, 6, 3);
        checkScatterAdd(DType.F64, Ref.random(rnd, -1, 1, 4, 3), DType.I32, idx, Ref.random(rnd, -1, 1, 6, 3), 0, 1e-12);
        checkScatterAdd(DType.I64, Ref.randomInts(rnd, -9, 9, 4, 3), DType.I64, idx, Ref.randomInts(rnd, -9, 9, 6, 3), 0,
                0);
        // small integers are exact in f16, so every rounded partial sum is too
        checkScatterAdd(DType.F16, Ref.randomInts(rnd, -9, 9, 4, 3), DType.I64, idx, Ref.randomInts(rnd, -9, 9, 6, 3), 0,
                0);
        Ref big = Ref.zeros(4, 3);
        java.util.Arrays.fill(big.data(), Integer.MAX_VALUE); // adding wraps like Java int
        checkScatterAdd(DType.I32, big, DType.I32, idx, Ref.randomInts(rnd, 1, 9, 6, 3), 0, 0);
    }

    @Test
    void scatterAdd_outOfRangeThrows() {
        Graph g = new Graph("scatter");
        Value d = g.input("data", Shape.of(DType.F32, 3, 2));
        Value i = g.input("idx", Shape.of(DType.I32, 2, 2));
        Value u = g.input("upd", Shape.of(DType.F32, 2, 2));
        g.setOutputs(g.name(g.scatterAdd(d, i, u, 0), "acc"));
        try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(g)) {
            c.setInput("data", new float[6]);
            c.setInput("upd", new float[4]);
            c.setInput("idx", new int[] {0, 2, 3, 1});
            IndexOutOfRangeException e = assertThrows(IndexOutOfRangeException.class, c::run);
            assertTrue(e.getMessage().contains("scatter_add 'acc'"), e.getMessage());
            assertTrue(e.getMessage().contains("index 3 at [1, 0]"), e.getMessage());
            assertTrue(e.getMessage().contains("-3 <= index < 3"), e.getMessage());
        }
    }

    @Test
    void scatterAdd_large() {
        Ref data = Ref.random(rnd, -1, 1, 1000, 512);
        checkScatterAdd(DType.F32, data, DType.I64, Ref.randomInts(rnd, 0, 1000, 2000, 512),
                Ref.random(rnd, -1, 1, 2000, 512), 0, 1e-5);
    }
}
