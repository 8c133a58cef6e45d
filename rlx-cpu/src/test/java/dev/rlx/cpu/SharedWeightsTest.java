package dev.rlx.cpu;

import static dev.rlx.testkit.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.WeightSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * One weight set on the CPU, read by graphs of several shapes and by copies on several threads: right results
 * against a float64 reference, the weights held once, {@code setParam} seen by every graph of the set, and
 * copies that run at the same time without disturbing each other.
 */
class SharedWeightsTest {
    private static final int IN = 17;
    private static final int HIDDEN = 13;
    private static final int OUT = 5;

    /** {@code tanh(x @ w1 + b1) @ w2} for a batch of {@code rows}. */
    private static Graph mlp(int rows) {
        Graph g = new Graph("mlp_" + rows);
        Value x = g.input("x", Shape.of(DType.F32, rows, IN));
        Value w1 = g.param("w1", Shape.of(DType.F32, IN, HIDDEN));
        Value b1 = g.param("b1", Shape.of(DType.F32, HIDDEN));
        Value w2 = g.param("w2", Shape.of(DType.F32, HIDDEN, OUT));
        g.setOutputs(g.matmul(g.tanh(g.add(g.matmul(x, w1), b1)), w2));
        return g;
    }

    private static float[] random(Random r, int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (r.nextGaussian() * 0.5 + 0.01); // never exactly zero
        }
        return v;
    }

    private static double[] reference(float[] x, int rows, float[] w1, float[] b1, float[] w2) {
        double[] y = new double[rows * OUT];
        for (int r = 0; r < rows; r++) {
            double[] h = new double[HIDDEN];
            for (int j = 0; j < HIDDEN; j++) {
                double s = b1[j];
                for (int k = 0; k < IN; k++) {
                    s += (double) x[r * IN + k] * w1[k * HIDDEN + j];
                }
                h[j] = Math.tanh(s);
            }
            for (int o = 0; o < OUT; o++) {
                double s = 0;
                for (int j = 0; j < HIDDEN; j++) {
                    s += h[j] * w2[j * OUT + o];
                }
                y[r * OUT + o] = s;
            }
        }
        return y;
    }

    private static double[] toDouble(float[] f) {
        double[] d = new double[f.length];
        for (int i = 0; i < f.length; i++) {
            d[i] = f[i];
        }
        return d;
    }

    @Test
    void graphsOfSeveralShapes_readOneCopyOfTheWeights() {
        Random r = new Random(5);
        float[] w1 = random(r, IN * HIDDEN);
        float[] b1 = random(r, HIDDEN);
        float[] w2 = random(r, HIDDEN * OUT);
        try (Session s = new Session(Device.CPU); WeightSet w = s.newWeightSet("mlp")) {
            List<CompiledGraph> graphs = new ArrayList<>();
            for (int rows : new int[] {1, 7, 31}) {
                graphs.add(s.compile(mlp(rows), w));
            }
            w.put("w1", Tensor.of(w1, IN, HIDDEN));
            w.set("b1", b1);
            w.set("w2", Tensor.of(w2, HIDDEN, OUT));
            long weightBytes = 4L * (IN * HIDDEN + HIDDEN + HIDDEN * OUT);
            assertEquals(weightBytes, w.byteSize(), "held once for three graphs");
            for (CompiledGraph c : graphs) {
                int rows = c.inputShape("x").dim(0);
                float[] x = random(r, rows * IN);
                float[] y = c.run(Map.of("x", x)).get(0);
                assertClose(reference(x, rows, w1, b1, w2), toDouble(y), 1e-5, 1e-5, c.graph().name());
                assertEquals(weightBytes, c.weightBytes());
                assertTrue(c.arenaBytes() < weightBytes + 4L * rows * (IN + HIDDEN + OUT) * 2,
                        "the arena holds activations only: " + c.memoryReport());
            }
            // A param set through one graph is what every graph of the set reads.
            float[] b1b = random(r, HIDDEN);
            graphs.get(0).setParam("b1", b1b);
            CompiledGraph big = graphs.get(2);
            float[] x = random(r, 31 * IN);
            float[] y = big.run(Map.of("x", x)).get(0);
            assertClose(reference(x, 31, w1, b1b, w2), toDouble(y), 1e-5, 1e-5, "after setParam on another graph");
            graphs.forEach(CompiledGraph::close);
        }
    }

    @Test
    void copiesOnSeveralThreads_runIndependentlyOnSharedWeights() throws Exception {
        Random r = new Random(9);
        float[] w1 = random(r, IN * HIDDEN);
        float[] b1 = random(r, HIDDEN);
        float[] w2 = random(r, HIDDEN * OUT);
        int rows = 4;
        int threads = 3;
        float[][] inputs = new float[threads][];
        for (int t = 0; t < threads; t++) {
            inputs[t] = random(r, rows * IN);
        }
        try (Session s = new Session(Device.CPU, CompileOptions.defaults().withThreads(1))) {
            CompiledGraph original = s.compile(mlp(rows));
            original.setParam("w1", w1);
            original.setParam("b1", b1);
            original.setParam("w2", w2);
            // Expected bits: each input run alone on the original.
            float[][] expected = new float[threads][];
            for (int t = 0; t < threads; t++) {
                expected[t] = original.run(Map.of("x", inputs[t])).get(0);
                assertClose(reference(inputs[t], rows, w1, b1, w2), toDouble(expected[t]), 1e-5, 1e-5, "input " + t);
            }
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<Integer>> done = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int id = t;
                    CompiledGraph copy = original.copy();
                    done.add(pool.submit(() -> {
                        try (copy) {
                            float[] out = new float[rows * OUT];
                            for (int i = 0; i < 300; i++) {
                                copy.setInput("x", inputs[id]);
                                copy.run();
                                copy.output(0).copyTo(out);
                                assertArrayEquals(expected[id], out, "copy " + id + " run " + i);
                            }
                            return id;
                        }
                    }));
                }
                for (Future<Integer> f : done) {
                    f.get();
                }
            } finally {
                pool.shutdownNow();
            }
            assertEquals(1, original.weights().users(), "the copies let go of the weights when closed");
            original.close();
        }
    }
}
