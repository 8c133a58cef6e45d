package dev.rlx.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.DType;
import dev.rlx.ir.FftKind;
import dev.rlx.ir.FftNorm;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.UnaryKind;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.WeightSet;
import dev.rlx.testkit.Allocations;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * After warm-up, {@code setInput + run + output(0).copyTo} allocates nothing, measured with the JVM's
 * per-thread allocation counter (10,000 calls of the quickstart; 1,000 of a larger graph split across the
 * worker pool), on the calling thread and on the worker threads.
 */
@Tag("allocation") // runs in its own JVM: see the surefire configuration
class AllocationFreeRunTest {
    private static void assertNoAllocation(Graph g, String input, float[] x, float[] out, float[] w, int runs) {
        try (Session s = new Session(Device.CPU); CompiledGraph c = s.compile(g)) {
            if (w != null) {
                c.setParam("w", w);
            }
            assertSteadyStateAllocatesNothing("@" + g.name(), () -> {
                c.setInput(input, x);
                c.run();
                c.output(0).copyTo(out);
            }, runs);
        }
    }

    /** One clean round of {@code runs} calls, on the caller and on the CPU's worker threads. */
    private static void assertSteadyStateAllocatesNothing(String what, Runnable call, int runs) {
        Allocations.assertSteadyStateAllocatesNothing(what, call, runs, Allocations.ROUNDS, "rlx-cpu-");
    }

    /** {@code runSlots} (inputs and outputs by position) on a graph with shared weights, and on a copy. */
    @Test
    void runSlots_andACopyOfTheGraph_allocateNothing() {
        Graph g = new Graph("slots");
        Value x = g.input("x", Shape.of(DType.F32, 3, 64));
        Value y = g.input("y", Shape.of(DType.F32, 64));
        Value w = g.param("w", Shape.of(DType.F32, 64, 32));
        g.setOutputs(g.matmul(g.add(x, y), w), g.reduceSum(x, false, 1));
        float[][] in = {new float[3 * 64], new float[64]};
        Arrays.fill(in[0], 0.25f);
        Arrays.fill(in[1], -1f);
        float[][] out = {new float[3 * 32], new float[3]};
        try (Session s = new Session(Device.CPU); WeightSet weights = s.newWeightSet("slots");
             CompiledGraph c = s.compile(g, weights)) {
            float[] wv = new float[64 * 32];
            Arrays.fill(wv, 0.5f);
            weights.set("w", wv);
            assertSteadyStateAllocatesNothing("runSlots", () -> c.runSlots(in, out), 2_000);
            try (CompiledGraph copy = c.copy()) {
                assertSteadyStateAllocatesNothing("a copy's runSlots", () -> copy.runSlots(in, out), 2_000);
            }
        }
    }

    /** Every f32 unary kind: a boxed vector in any loop would show here (the loops are kept per kind for this). */
    @ParameterizedTest
    @EnumSource(UnaryKind.class)
    void unaryKinds_runAllocatesNothing(UnaryKind k) {
        Assumptions.assumeTrue(k.accepts(DType.F32));
        Graph g = new Graph("unary_" + k.label());
        g.setOutputs(g.unary(k, g.input("x", Shape.of(DType.F32, 1000))));
        float[] x = new float[1000];
        Arrays.fill(x, 0.5f);
        assertNoAllocation(g, "x", x, new float[1000], null, 2_000);
    }

    /** Every f32 unary kind after an add (one fused loop of two steps, as exporters write {@code log(x + eps)}). */
    @ParameterizedTest
    @EnumSource(UnaryKind.class)
    void fusedUnaryKinds_runAllocatesNothing(UnaryKind k) {
        Assumptions.assumeTrue(k.accepts(DType.F32));
        Graph g = new Graph("fused_" + k.label());
        g.setOutputs(g.unary(k, g.add(g.input("x", Shape.of(DType.F32, 1000)), g.scalar(1e-3f))));
        float[] x = new float[1000];
        Arrays.fill(x, 0.5f);
        assertNoAllocation(g, "x", x, new float[1000], null, 2_000);
    }

    /** Every comparison fused with its where (a mask local blended in the generated loop; 1001: a scalar tail). */
    @ParameterizedTest
    @EnumSource(dev.rlx.ir.CompareKind.class)
    void fusedCompareAndWhere_runAllocatesNothing(dev.rlx.ir.CompareKind k) {
        Graph g = new Graph("where_" + k.label());
        Value x = g.input("x", Shape.of(DType.F32, 1001));
        g.setOutputs(g.where(g.compare(k, x, g.scalar(0.25f)), g.mul(x, g.scalar(0.1f)), g.exp(x)));
        float[] xs = new float[1001];
        for (int i = 0; i < xs.length; i++) {
            xs[i] = (i % 3 - 1) * 0.25f;
        }
        assertNoAllocation(g, "x", xs, new float[1001], null, 2_000);
    }

    /** Every f32 binary kind, with a broadcast scalar and with two contiguous operands. */
    @ParameterizedTest
    @EnumSource(BinaryKind.class)
    void binaryKinds_runAllocatesNothing(BinaryKind k) {
        Assumptions.assumeTrue(k.accepts(DType.F32));
        Graph g = new Graph("binary_" + k.label());
        Value x = g.input("x", Shape.of(DType.F32, 1000));
        g.setOutputs(g.binary(k, g.binary(k, x, g.scalar(1.5f)), x));
        float[] xs = new float[1000];
        Arrays.fill(xs, 0.5f);
        assertNoAllocation(g, "x", xs, new float[1000], null, 2_000);
    }

    @Test
    void quickstart_runAllocatesNothing() {
        Graph g = new Graph("hello");
        Value x = g.input("x", Shape.of(DType.F32, 1, 4));
        Value w = g.param("w", Shape.of(DType.F32, 4, 2));
        g.setOutputs(g.matmul(x, w));
        assertNoAllocation(g, "x", new float[] {1, 2, 3, 4}, new float[2], new float[] {1, 0, 0, 1, 1, 0, 0, 1}, 10_000);
    }

    @Test
    void parallelElementwiseAndMatmul_runAllocatesNothing() {
        // big enough that element-wise work and the matmul are split across the worker pool
        Graph g = new Graph("mlp");
        Value x = g.input("x", Shape.of(DType.F32, 32, 256));
        Value w = g.param("w", Shape.of(DType.F32, 256, 512));
        Value h = g.gelu(g.add(g.matmul(x, w), g.scalar(0.5f)));
        g.setOutputs(g.transpose(g.mul(h, h), 1, 0));
        Random r = new Random(1);
        float[] xs = new float[32 * 256];
        float[] ws = new float[256 * 512];
        for (int i = 0; i < xs.length; i++) {
            xs[i] = r.nextFloat() - 0.5f;
        }
        for (int i = 0; i < ws.length; i++) {
            ws[i] = (r.nextFloat() - 0.5f) * 0.1f;
        }
        float[] out = new float[32 * 512];
        assertNoAllocation(g, "x", xs, out, ws, 1_000);
        assertEquals(false, Arrays.equals(out, new float[out.length]), "the graph produced output");
    }

    /**
     * FFT kernels on every path: the vector FFT (contiguous, strided, real split/merge), f32 Bluestein on it
     * (even and odd real lengths), the double-precision mixed-radix and Bluestein transforms (f64); split across the worker pool where there are several lines.
     */
    @ParameterizedTest
    @ValueSource(strings = {"vector", "real_vector", "strided_vector", "vector_bluestein", "odd_real_bluestein",
            "scalar_bluestein", "f64"})
    void fftPaths_runAllocatesNothing(String path) {
        Graph g = new Graph("fft_" + path);
        int[] dims = switch (path) {
            case "vector" -> new int[] {4, 1024, 2};
            case "real_vector" -> new int[] {4, 2048};
            case "strided_vector" -> new int[] {512, 3, 2};
            case "vector_bluestein", "scalar_bluestein" -> new int[] {3, 1000};
            case "odd_real_bluestein" -> new int[] {2, 4093};
            default -> new int[] {2, 12, 2};
        };
        Value x = g.input("x", Shape.of(path.equals("f64") || path.equals("scalar_bluestein") ? DType.F64 : DType.F32,
                dims));
        Value y = switch (path) {
            case "vector" -> g.fft(g.fft(x, FftKind.C2C_FORWARD, 1, FftNorm.BACKWARD, 1024), FftKind.C2C_INVERSE, 0,
                    FftNorm.ORTHO, 4);
            case "real_vector" -> g.fft(g.fft(x, FftKind.R2C, 1, FftNorm.BACKWARD, 2048), FftKind.C2R, 1,
                    FftNorm.BACKWARD, 2048);
            case "strided_vector" -> g.fft(x, FftKind.C2C_FORWARD, 0, FftNorm.BACKWARD, 512);
            case "vector_bluestein", "scalar_bluestein" -> g.fft(g.fft(x, FftKind.R2C, 1, FftNorm.BACKWARD, 1000),
                    FftKind.C2C_FORWARD, 1, FftNorm.BACKWARD, 501); // 501 = 3 * 167: Bluestein
            case "odd_real_bluestein" -> g.fft(g.fft(x, FftKind.R2C, 1, FftNorm.BACKWARD, 4093), FftKind.C2R, 1,
                    FftNorm.BACKWARD, 4093);
            default -> g.fft(x, FftKind.C2C_INVERSE, 1, FftNorm.FORWARD, 12);
        };
        g.setOutputs(y);
        Random r = new Random(2);
        float[] xs = new float[(int) x.shape().elementCount()];
        for (int i = 0; i < xs.length; i++) {
            xs[i] = r.nextFloat() - 0.5f;
        }
        float[] out = new float[(int) y.shape().elementCount()];
        assertNoAllocation(g, "x", xs, out, null, 1_000);
        assertEquals(false, Arrays.equals(out, new float[out.length]), "the graph produced output");
    }
}
