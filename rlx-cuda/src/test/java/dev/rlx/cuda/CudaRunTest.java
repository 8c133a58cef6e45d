package dev.rlx.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.testkit.Allocations;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The quickstart, an SGEMM of odd sizes through cuBLAS, a graph run with and without CUDA graphs (the same bits),
 * submit/await, and a steady run that allocates nothing on the Java heap. Needs a CUDA device.
 */
class CudaRunTest {
    @BeforeAll
    static void needsADevice() {
        Assumptions.assumeTrue(Device.CUDA.isAvailable(), CudaTestDevice::missing);
    }

    static Graph quickstart() {
        Graph g = new Graph("hello");
        Value x = g.input("x", Shape.of(DType.F32, 1, 4));
        Value w = g.param("w", Shape.of(DType.F32, 4, 2));
        g.setOutputs(g.matmul(x, w));
        return g;
    }

    @Test
    void quickstart_matmulGivesFourSix() {
        try (Session s = new Session(Device.CUDA); CompiledGraph c = s.compile(quickstart())) {
            c.setParam("w", new float[] {1, 0, 0, 1, 1, 0, 0, 1});
            assertArrayEquals(new float[] {4, 6}, c.run(Map.of("x", new float[] {1, 2, 3, 4})).get(0));
        }
    }

    private static float[] random(int n, long seed) {
        Random r = new Random(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = r.nextFloat() * 2 - 1;
        }
        return v;
    }

    @Test
    void sgemm_oddSizes_matchesFloat64() {
        int m = 37;
        int k = 129;
        int n = 61;
        Graph g = new Graph("sgemm");
        g.setOutputs(g.matmul(g.input("a", Shape.of(DType.F32, m, k)), g.input("b", Shape.of(DType.F32, k, n))));
        float[] av = random(m * k, 7);
        float[] bv = random(k * n, 8);
        try (Session s = new Session(Device.CUDA); CompiledGraph c = s.compile(g)) {
            float[] out = c.run(Map.of("a", av, "b", bv)).get(0);
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < n; j++) {
                    double ref = 0;
                    for (int p = 0; p < k; p++) {
                        ref += (double) av[i * k + p] * bv[p * n + j];
                    }
                    assertEquals(ref, out[i * n + j], 1e-5 * Math.max(1, Math.abs(ref)), "at " + i + "," + j);
                }
            }
        }
    }

    /** matmul, a fused GELU-like chain and a long reduction: graph replay and launch-by-launch agree bit for bit. */
    @Test
    void withAndWithoutCudaGraphs_sameBits() {
        Graph g = new Graph("mlp");
        Value x = g.input("x", Shape.of(DType.F32, 33, 70));
        Value w = g.param("w", Shape.of(DType.F32, 70, 3000));
        Value h = g.matmul(x, w);
        Value t = g.tanh(g.mul(h, g.scalar(0.5f)));
        g.setOutputs(g.reduceSum(g.add(t, h), false, 1));
        float[] xv = random(33 * 70, 1);
        float[] wv = random(70 * 3000, 2);
        float[] withGraphs = runOnce(g, xv, wv);
        System.setProperty("RLX_CUDA_GRAPHS", "0");
        float[] without;
        try {
            without = runOnce(g, xv, wv);
        } finally {
            System.clearProperty("RLX_CUDA_GRAPHS");
        }
        assertArrayEquals(withGraphs, without);
    }

    private static float[] runOnce(Graph g, float[] xv, float[] wv) {
        try (Session s = new Session(Device.CUDA); CompiledGraph c = s.compile(g)) {
            c.setParam("w", wv);
            return c.run(Map.of("x", xv)).get(0);
        }
    }

    @Test
    void submitThenAwait_givesTheResultOfRun() {
        try (Session s = new Session(Device.CUDA); CompiledGraph c = s.compile(quickstart())) {
            c.setParam("w", new float[] {1, 0, 0, 1, 1, 0, 0, 1});
            c.setInput("x", new float[] {1, 2, 3, 4});
            c.submit();
            c.await();
            float[] out = new float[2];
            c.output(0).copyTo(out);
            assertArrayEquals(new float[] {4, 6}, out);
        }
    }

    @Test
    void steadyRun_allocatesNothingOnTheHeap() {
        try (Session s = new Session(Device.CUDA); CompiledGraph c = s.compile(quickstart())) {
            c.setParam("w", new float[] {1, 0, 0, 1, 1, 0, 0, 1});
            float[] x = {1, 2, 3, 4};
            float[] out = new float[2];
            Allocations.assertSteadyStateAllocatesNothing("cuda quickstart", () -> {
                c.setInput("x", x);
                c.run();
                c.output(0).copyTo(out);
            }, 500);
            assertArrayEquals(new float[] {4, 6}, out);
        }
    }
}
