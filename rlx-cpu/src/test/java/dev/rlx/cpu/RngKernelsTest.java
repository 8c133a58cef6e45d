package dev.rlx.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.RngOptions;
import dev.rlx.runtime.Session;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Tag;

/** RngNormal / RngUniform on the CPU backend: statistics, determinism, streams, reseeding. */
class RngKernelsTest {
    private static final int N = 1_000_000;

    /** Runs {@code g} {@code runs} times under {@code rng} with {@code threads} and returns each run's outputs. */
    private static List<List<double[]>> runs(Graph g, RngOptions rng, int threads, int runs) {
        try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(g,
                CompileOptions.defaults().withThreads(threads).withRng(rng))) {
            List<List<double[]>> all = new ArrayList<>();
            for (int r = 0; r < runs; r++) {
                c.run();
                all.add(outputs(c));
            }
            return all;
        }
    }

    private static List<double[]> outputs(CompiledGraph c) {
        List<double[]> out = new ArrayList<>();
        for (var v : c.outputs()) {
            double[] d = new double[(int) v.size()];
            v.copyTo(d);
            out.add(d);
        }
        return out;
    }

    private static List<double[]> once(Graph g, RngOptions rng) {
        return runs(g, rng, 0, 1).get(0);
    }

    private static Graph graph(boolean normal, Shape shape) {
        Graph g = new Graph(normal ? "normal" : "uniform");
        g.setOutputs(normal ? g.rngNormal(0f, 1f, shape) : g.rngUniform(0f, 1f, shape));
        return g;
    }

    /** Sample mean, variance, third and fourth central moments, in double. */
    private static double[] moments(double[] x) {
        double mean = 0;
        for (double v : x) {
            mean += v;
        }
        mean /= x.length;
        double m2 = 0, m3 = 0, m4 = 0;
        for (double v : x) {
            double d = v - mean;
            m2 += d * d;
            m3 += d * d * d;
            m4 += d * d * d * d;
        }
        return new double[] {mean, m2 / x.length, m3 / x.length, m4 / x.length};
    }

    // ---------------------------------------------------------------- statistics

    @Test
    void philoxNormal_momentsOfAMillionSamples() {
        double[] x = once(graph(true, Shape.of(DType.F32, N)), RngOptions.philox(1)).get(0);
        double[] m = moments(x);
        // Standard errors for n = 1e6: mean 1e-3, variance sqrt(2/n) = 1.4e-3, skew sqrt(15/n) = 3.9e-3,
        // kurtosis sqrt(96/n) = 9.8e-3; bounds are about five of them.
        assertEquals(0, m[0], 5e-3, "mean");
        assertEquals(1, m[1], 7e-3, "variance");
        assertEquals(0, m[2], 2e-2, "third moment");
        assertEquals(3, m[3], 5e-2, "fourth moment (3 for a normal)");
    }

    @Test
    void philoxUniform_momentsAndRangeOfAMillionSamples() {
        Graph g = new Graph("u");
        g.setOutputs(g.rngUniform(-1f, 3f, Shape.of(DType.F32, N)));
        double[] x = once(g, RngOptions.philox(2)).get(0);
        double[] m = moments(x);
        // U(-1, 3): mean 1, variance 16/12, fourth moment 16^2/80 = 3.2; standard errors ~1.2e-3, 1.2e-3, 3e-3.
        assertEquals(1, m[0], 6e-3, "mean");
        assertEquals(16.0 / 12, m[1], 6e-3, "variance");
        assertEquals(0, m[2], 1e-2, "third moment");
        assertEquals(3.2, m[3], 1.5e-2, "fourth moment");
        for (double v : x) {
            if (!(v >= -1 && v < 3)) {
                fail("uniform value " + v + " outside [-1, 3)");
            }
        }
    }

    @Test
    void ortNormal_momentsOfAMillionSamples() {
        Graph g = new Graph("n");
        g.setOutputs(g.rngNormal(2f, 0.5f, Shape.of(DType.F32, N), 11));
        double[] m = moments(once(g, RngOptions.ort(0)).get(0));
        assertEquals(2, m[0], 2.5e-3, "mean");
        assertEquals(0.25, m[1], 2e-3, "variance");
    }

    // ---------------------------------------------------------------- determinism

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void philox_sameSeedSameOutputWhateverTheThreadCount(boolean normal) {
        Graph g = graph(normal, Shape.of(DType.F32, 3, 50_001)); // not a multiple of a block or of a part
        List<List<double[]>> one = runs(g, RngOptions.philox(9), 1, 2);
        for (int threads : new int[] {2, 3, 5}) {
            List<List<double[]>> many = runs(g, RngOptions.philox(9), threads, 2);
            for (int r = 0; r < 2; r++) {
                assertArrayEquals(one.get(r).get(0), many.get(r).get(0), "run " + r + " with " + threads + " threads");
            }
        }
        assertArrayEquals(one.get(0).get(0), runs(g, RngOptions.philox(9), 1, 1).get(0).get(0), "a fresh compile");
    }

    @Test
    void philox_elementDependsOnlyOnItsIndex() {
        // A longer tensor from the same stream starts with the shorter one: no element depends on the length.
        double[] shortOne = once(graph(true, Shape.of(DType.F32, 7)), RngOptions.philox(4)).get(0);
        double[] longOne = once(graph(true, Shape.of(DType.F32, 70_000)), RngOptions.philox(4)).get(0);
        for (int i = 0; i < shortOne.length; i++) {
            assertEquals(shortOne[i], longOne[i], "element " + i);
        }
    }

    @Test
    void twoNodes_drawIndependentStreams() {
        Graph g = new Graph("two");
        Shape s = Shape.of(DType.F32, 200_000);
        g.setOutputs(g.rngNormal(0f, 1f, s), g.rngNormal(0f, 1f, s), g.rngNormal(0f, 1f, s, 5), g.rngNormal(0f, 1f, s, 5));
        List<double[]> out = once(g, RngOptions.philox(3));
        for (int i = 0; i < 4; i++) {
            for (int j = i + 1; j < 4; j++) {
                double c = correlation(out.get(i), out.get(j));
                // For independent streams the sample correlation has standard error 1/sqrt(n) = 2.2e-3.
                assertEquals(0, c, 1.2e-2, "nodes " + i + " and " + j + " (equal seeds too)");
            }
        }
    }

    private static double correlation(double[] a, double[] b) {
        double ma = moments(a)[0], mb = moments(b)[0], sab = 0, saa = 0, sbb = 0;
        for (int i = 0; i < a.length; i++) {
            sab += (a[i] - ma) * (b[i] - mb);
            saa += (a[i] - ma) * (a[i] - ma);
            sbb += (b[i] - mb) * (b[i] - mb);
        }
        return sab / Math.sqrt(saa * sbb);
    }

    // ---------------------------------------------------------------- runs and reseeding

    @ParameterizedTest
    @EnumSource(value = RngOptions.Generator.class, names = {"PHILOX", "ORT"})
    void runs_advanceByDefaultAndRepeatWhenAsked(RngOptions.Generator gen) {
        Graph g = graph(true, Shape.of(DType.F32, 1001));
        RngOptions o = new RngOptions(gen, 8, true);
        List<List<double[]>> adv = runs(g, o, 0, 2);
        assertFalse(java.util.Arrays.equals(adv.get(0).get(0), adv.get(1).get(0)), "the second run continues the stream");
        List<List<double[]>> same = runs(g, o.withAdvanceAcrossRuns(false), 0, 2);
        assertArrayEquals(adv.get(0).get(0), same.get(0).get(0), "the first run does not depend on the rule");
        assertArrayEquals(same.get(0).get(0), same.get(1).get(0), "without advancing every run repeats");
    }

    @Test
    void setRng_reseedsWithoutRecompiling() {
        Graph g = new Graph("reseed");
        Shape s = Shape.of(DType.F32, 64);
        g.setOutputs(g.rngUniform(0f, 1f, s), g.rngUniform(0f, 1f, s, 77));
        try (Session ses = new Session(Device.CPU); CompiledGraph c = ses.compile(g,
                CompileOptions.defaults().withRng(RngOptions.philox(1)))) {
            c.run();
            List<double[]> first = outputs(c);
            c.run();
            c.setRng(RngOptions.philox(2));
            c.run();
            List<double[]> other = outputs(c);
            assertFalse(java.util.Arrays.equals(first.get(0), other.get(0)), "a new seed changes the unseeded node");
            assertArrayEquals(first.get(1), other.get(1), "a node with its own seed keeps its stream");
            c.setRng(RngOptions.philox(1));
            c.run();
            assertArrayEquals(first.get(0), outputs(c).get(0), "the original seed restarts the stream");
            c.setRng(RngOptions.zero());
            c.run();
            assertArrayEquals(new double[64], new double[64]);
            for (double v : outputs(c).get(0)) {
                assertEquals(0.5, v, "zero generator writes the mean (low + high) / 2");
            }
        }
    }

    @Test
    void zero_writesMeansInEveryDtype() {
        Graph g = new Graph("z");
        g.setOutputs(g.rngNormal(1.5f, 9f, Shape.of(DType.F64, 3)), g.rngUniform(-2f, 4f, Shape.of(DType.F16, 5)));
        List<double[]> out = once(g, RngOptions.zero());
        assertArrayEquals(new double[] {1.5, 1.5, 1.5}, out.get(0));
        assertArrayEquals(new double[] {1, 1, 1, 1, 1}, out.get(1));
    }

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"F16", "BF16", "F64"})
    void otherFloatDtypes_holdTheF32ValuesRounded(DType t) {
        Graph g32 = graph(false, Shape.of(DType.F32, 9));
        Graph gt = graph(false, Shape.of(t, 9));
        double[] a = once(g32, RngOptions.philox(6)).get(0);
        double[] b = once(gt, RngOptions.philox(6)).get(0);
        for (int i = 0; i < a.length; i++) {
            assertEquals(a[i], b[i], t == DType.F64 ? 1e-7 : 1e-2, "element " + i);
        }
    }

    @Test
    void cos2pi_matchesMathCos() {
        for (int k = 0; k < 1 << 16; k++) {
            double u = k / 65536.0;
            assertEquals(Math.cos(2 * Math.PI * u), dev.rlx.cpu.kernels.RngKernelAccess.cos2pi(u), 1e-15, "u = " + u); // the reference rounds 2πu itself (~4e-16)
        }
    }

    @Tag("allocation")
    @Test
    void run_allocatesNothing() {
        Graph g = new Graph("alloc");
        Value x = g.input("x", Shape.of(DType.F32, 5000));
        g.setOutputs(g.add(x, g.rngNormal(0f, 1f, Shape.of(DType.F32, 5000))), g.rngUniform(0f, 1f, Shape.of(DType.F32, 9)));
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (RngOptions o : new RngOptions[] {RngOptions.philox(1), RngOptions.ort(1), RngOptions.zero()}) {
            try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(g, CompileOptions.defaults().withRng(o))) {
                c.setInput("x", new float[5000]);
                boolean clean = false;
                for (int round = 0; round < 25 && !clean; round++) { // the first rounds warm up the JIT
                    long before = threads.getCurrentThreadAllocatedBytes();
                    for (int i = 0; i < 100; i++) {
                        c.run();
                    }
                    clean = threads.getCurrentThreadAllocatedBytes() == before;
                }
                assertTrue(clean, o + ": run() allocated in every round");
            }
        }
    }
}
