package dev.rlx.cpu;

import static dev.rlx.testkit.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.WeightSet;
import dev.rlx.runtime.spi.HostRuntime;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Matmuls whose B is a weight pack it once, not per run (MatMulKernel's pre-packed B): the result against a
 * float64 triple loop and bit for bit against the same graph compiled without weight copies
 * ({@code RLX_PREPACK_MB=0}); a weight written after the first run (setParam, a shared weight set) is packed
 * again; memory bound by reference, which its owner changes in place, is never copied. Tolerance as in
 * {@link MatMulPathsTest}: {@code |err| <= 1e-6 * k + 1e-5 * |expected|}.
 */
class PrepackedWeightsTest {
    private static float[] random(Random r, int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (r.nextDouble() * 2 - 1) + 1e-3f; // never exactly zero
        }
        return v;
    }

    /** Row-major {@code x [m,k]} times {@code w} ({@code [k,n]}, or {@code [n,k]} when transposed), in float64. */
    private static double[] reference(float[] x, float[] w, int m, int k, int n, boolean transB) {
        double[] c = new double[m * n];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int p = 0; p < k; p++) {
                    s += (double) x[i * k + p] * (transB ? w[j * k + p] : w[p * n + j]);
                }
                c[i * n + j] = s;
            }
        }
        return c;
    }

    private static double[] toDouble(float[] f) {
        double[] d = new double[f.length];
        for (int i = 0; i < f.length; i++) {
            d[i] = f[i];
        }
        return d;
    }

    /** {@code y = x @ w} (or {@code x @ w^T}) with {@code w} a param. */
    private static Graph linear(int m, int k, int n, boolean transB) {
        Graph g = new Graph("linear");
        Value x = g.input("x", Shape.of(DType.F32, m, k));
        Value w = g.param("w", transB ? Shape.of(DType.F32, n, k) : Shape.of(DType.F32, k, n));
        g.setOutputs(g.apply1(new Op.MatMul(false, transB), x, w));
        return g;
    }

    /** {@code work} with the RLX_PREPACK_MB setting at {@code mb} (restored after). */
    private static <T> T withPrepackMb(String mb, Supplier<T> work) {
        String before = System.getProperty("RLX_PREPACK_MB");
        System.setProperty("RLX_PREPACK_MB", mb);
        try {
            return work.get();
        } finally {
            if (before == null) {
                System.clearProperty("RLX_PREPACK_MB");
            } else {
                System.setProperty("RLX_PREPACK_MB", before);
            }
        }
    }

    private static float[] runOnce(Graph g, float[] x, float[] w, int threads, String prepackMb) {
        return withPrepackMb(prepackMb, () -> {
            try (Session s = new Session(Device.CPU, CompileOptions.defaults().withThreads(threads));
                 CompiledGraph c = s.compile(g)) {
                c.setParam("w", w);
                c.run(Map.of("x", x));
                return c.run(Map.of("x", x)).get(0); // the second run reads the packed copy made by the first
            }
        });
    }

    @ParameterizedTest(name = "{0}x{1}x{2} transB={3} threads={4}")
    @CsvSource({
            "7, 13, 19, false, 1",     // one short panel
            "29, 530, 70, false, 1",   // rows that would read B in place; K past a slice (KC = 512)
            "101, 47, 83, true, 1",    // rows past a block (MC = 96), transposed weight
            "128, 384, 200, false, 2", // MiniLM-like, split over threads (column pieces start on panels)
            "37, 65, 2061, false, 2",  // columns past a packed block (NC = 2048)
            "50, 1031, 130, true, 2"})
    void packedWeight_matchesFloat64_andTheUnpackedBits(int m, int k, int n, boolean transB, int threads) {
        Random r = new Random(7L * m + 13L * k + n);
        float[] x = random(r, m * k);
        float[] w = random(r, k * n);
        Graph g = linear(m, k, n, transB);
        float[] packed = runOnce(g, x, w, threads, "256");
        float[] unpacked = runOnce(g, x, w, threads, "0");
        assertClose(reference(x, w, m, k, n, transB), toDouble(packed), 1e-6 * k, 1e-5, "pre-packed");
        assertArrayEquals(unpacked, packed, "the same tiles in the same order: the same bits");
    }

    @Test
    void weightSetAfterTheFirstRun_isPackedAgain() {
        int m = 40, k = 70, n = 90;
        Random r = new Random(3);
        float[] x = random(r, m * k);
        float[] w1 = random(r, k * n);
        float[] w2 = random(r, k * n);
        try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(linear(m, k, n, false))) {
            c.setParam("w", w1);
            float[] y1 = c.run(Map.of("x", x)).get(0);
            assertClose(reference(x, w1, m, k, n, false), toDouble(y1), 1e-6 * k, 1e-5, "first weight");
            c.setParam("w", w2);
            float[] y2 = c.run(Map.of("x", x)).get(0);
            assertClose(reference(x, w2, m, k, n, false), toDouble(y2), 1e-6 * k, 1e-5, "after setParam");
            c.setParam("w", Tensor.of(w1, k, n));
            assertArrayEquals(y1, c.run(Map.of("x", x)).get(0), "back to the first weight");
        }
    }

    @Test
    void sharedWeightWrittenThroughTheSet_reachesEveryGraph() {
        int k = 48, n = 70;
        Random r = new Random(4);
        float[] w1 = random(r, k * n);
        float[] w2 = random(r, k * n);
        try (Session s = new Session(Device.CPU); WeightSet ws = s.newWeightSet("shared")) {
            CompiledGraph a = s.compile(linear(33, k, n, false), ws);
            CompiledGraph b = s.compile(linear(64, k, n, false), ws);
            ws.set("w", w1);
            float[] xa = random(r, 33 * k);
            float[] xb = random(r, 64 * k);
            a.run(Map.of("x", xa));
            b.run(Map.of("x", xb));
            ws.set("w", w2);
            assertClose(reference(xa, w2, 33, k, n, false), toDouble(a.run(Map.of("x", xa)).get(0)), 1e-6 * k,
                    1e-5, "graph a after the set's write");
            assertClose(reference(xb, w2, 64, k, n, false), toDouble(b.run(Map.of("x", xb)).get(0)), 1e-6 * k,
                    1e-5, "graph b after the set's write");
            a.close();
            b.close();
        }
    }

    @Test
    void weightBoundByReference_isReadInPlace_soChangesInPlaceAreSeen() {
        int m = 64, k = 40, n = 80;
        Random r = new Random(5);
        float[] x = random(r, m * k);
        float[] w1 = random(r, k * n);
        float[] w2 = random(r, k * n);
        try (Arena arena = Arena.ofConfined(); Session s = new Session(Device.CPU);
             WeightSet ws = s.newWeightSet("bound")) {
            MemorySegment mem = arena.allocate(4L * k * n, 64);
            MemorySegment.copy(w1, 0, mem, ValueLayout.JAVA_FLOAT, 0, w1.length);
            ws.bind("w", Shape.of(DType.F32, k, n), HostRuntime.wrap(mem));
            try (CompiledGraph c = s.compile(linear(m, k, n, false), ws)) {
                assertClose(reference(x, w1, m, k, n, false), toDouble(c.run(Map.of("x", x)).get(0)), 1e-6 * k,
                        1e-5, "bound weight");
                MemorySegment.copy(w2, 0, mem, ValueLayout.JAVA_FLOAT, 0, w2.length); // the owner refills it
                assertClose(reference(x, w2, m, k, n, false), toDouble(c.run(Map.of("x", x)).get(0)), 1e-6 * k,
                        1e-5, "after its owner changed it in place");
            }
        }
    }

    @Test
    void constantWeight_isPackedOnce() {
        int m = 45, k = 31, n = 77;
        Random r = new Random(6);
        float[] x = random(r, m * k);
        float[] w = random(r, k * n);
        Graph g = new Graph("const");
        Value xv = g.input("x", Shape.of(DType.F32, m, k));
        g.setOutputs(g.apply1(new Op.MatMul(false, false), xv, g.constant(w, k, n)));
        try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(g)) {
            float[] y1 = c.run(Map.of("x", x)).get(0);
            assertClose(reference(x, w, m, k, n, false), toDouble(y1), 1e-6 * k, 1e-5, "constant weight");
            assertArrayEquals(y1, c.run(Map.of("x", x)).get(0), "run to run");
        }
    }

    /**
     * A param's packed copy is the weight set's, made once for every graph that packs it the same way (a model at
     * several shapes, or on several sessions), not one per graph; a different view of the weight (transposed)
     * is a copy of its own.
     */
    @Test
    void packedCopy_isTheWeightSets_oncePerLayout() {
        int k = 256, n = 512;
        Random r = new Random(8);
        float[] w = random(r, k * n);
        withPrepackMb("256", () -> {
            try (Session s = new Session(Device.CPU); Session other = new Session(Device.CPU,
                    CompileOptions.defaults().withThreads(1)); WeightSet ws = s.newWeightSet("shared")) {
                CompiledGraph a = s.compile(linear(64, k, n, false), ws);
                ws.set("w", w);
                float[] xa = random(r, 64 * k);
                float[] ya = a.run(Map.of("x", xa)).get(0);
                long one = ws.copyBytes();
                assertTrue(one >= 4L * k * n, "the packed " + k + "x" + n + " weight: " + one + " bytes");
                CompiledGraph b = s.compile(linear(96, k, n, false), ws);
                CompiledGraph c = other.compile(linear(64, k, n, false), ws);
                float[] xb = random(r, 96 * k);
                assertClose(reference(xb, w, 96, k, n, false), toDouble(b.run(Map.of("x", xb)).get(0)), 1e-6 * k,
                        1e-5, "a second shape reading the shared packed copy");
                assertArrayEquals(ya, c.run(Map.of("x", xa)).get(0), "another session's graph: the same bits");
                assertEquals(one, ws.copyBytes(), "three graphs, one packed copy");
                a.close();
                b.close();
                c.close();
            }
            return null;
        });
        withPrepackMb("0", () -> {
            try (Session s = new Session(Device.CPU); WeightSet ws = s.newWeightSet("off")) {
                CompiledGraph a = s.compile(linear(64, k, n, false), ws);
                ws.set("w", w);
                a.run(Map.of("x", random(r, 64 * k)));
                assertEquals(0, ws.copyBytes(), "RLX_PREPACK_MB=0: no copies");
                a.close();
            }
            return null;
        });
    }

    /** A constant's packed copy is its graph's memory (constants are not in a weight set). */
    @Test
    void constantCopiesCountAsTheGraphsMemory() {
        int m = 64, k = 256, n = 512;
        float[] w = random(new Random(9), k * n);
        Graph g = new Graph("const");
        Value xv = g.input("x", Shape.of(DType.F32, m, k));
        g.setOutputs(g.apply1(new Op.MatMul(false, false), xv, g.constant(w, k, n)));
        long withCopies = withPrepackMb("256", () -> deviceBytes(g));
        long without = withPrepackMb("0", () -> deviceBytes(g));
        assertTrue(withCopies - without >= 4L * k * n, "the packed copy of the " + k + "x" + n + " constant: "
                + withCopies + " vs " + without + " bytes");
    }

    private static long deviceBytes(Graph g) {
        try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(g)) {
            return c.deviceBytes();
        }
    }
}
