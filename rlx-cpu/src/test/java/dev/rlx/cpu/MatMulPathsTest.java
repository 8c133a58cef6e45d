package dev.rlx.cpu;

import static dev.rlx.testkit.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.rlx.cpu.blas.OpenBlas;
import dev.rlx.testkit.reference.Ref;
import dev.rlx.cpu.testing.Runner;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every f32 matmul path of the CPU backend against a float64 triple loop: the packed SGEMM (A read in place
 * or packed when transposed, short last panels, several K slices, several row blocks), the skinny path for a
 * few rows, the dot-product path for a transposed B, and OpenBLAS through FFM when the library is there, on
 * sizes that are primes, 1, or not multiples of the vector length or of the blocking.
 *
 * <p>Tolerance: {@code |err| <= 1e-6 * k + 1e-5 * |expected|}; inputs are uniform in [-1, 1], so float32
 * rounding over k products stays well inside it.
 */
class MatMulPathsTest {

    static Stream<Arguments> shapes() {
        return Stream.of(
                Arguments.of(1, 1, 1),
                Arguments.of(1, 37, 131),      // skinny: one row (decode), ragged columns
                Arguments.of(3, 300, 67),      // skinny: a few rows
                Arguments.of(1, 1537, 700),    // skinny GEMV big enough to split K over threads, odd sizes
                Arguments.of(2, 1500, 400),    // the same with two rows
                Arguments.of(5, 1, 17),        // K = 1
                Arguments.of(7, 13, 19),       // one short panel, one ragged column block
                Arguments.of(13, 521, 29),     // K past one slice (KC = 512)
                Arguments.of(101, 47, 83),     // rows past one block (MC = 96), a 5-row last panel
                Arguments.of(29, 530, 70),     // B read in place (rows <= IN_PLACE_ROWS), K past a slice, narrow panel
                Arguments.of(6, 11, 2053),     // columns past one packed block (NC = 2048)
                Arguments.of(97, 1031, 130));  // all of it at once
    }

    private static Ref ref(int m, int k, int n, boolean transA, boolean transB, Ref a, Ref b) {
        Ref c = Ref.zeros(m, n);
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int p = 0; p < k; p++) {
                    double av = transA ? a.data()[p * m + i] : a.data()[i * k + p];
                    double bv = transB ? b.data()[j * k + p] : b.data()[p * n + j];
                    s += av * bv;
                }
                c.data()[i * n + j] = s;
            }
        }
        return c;
    }

    private static void check(int m, int k, int n, boolean transA, boolean transB, int threads, String path) {
        Random r = new Random(31L * m + 17L * k + n);
        Ref a = transA ? Ref.random(r, -1, 1, k, m) : Ref.random(r, -1, 1, m, k);
        Ref b = transB ? Ref.random(r, -1, 1, n, k) : Ref.random(r, -1, 1, k, n);
        Graph g = new Graph("mm");
        Value av = g.input("a", Shape.of(DType.F32, a.dims()));
        Value bv = g.input("b", Shape.of(DType.F32, b.dims()));
        g.setOutputs(g.apply1(new Op.MatMul(transA, transB), av, bv));
        double[] out = Runner.run(g, Map.of("a", a, "b", b), threads).get(0);
        assertClose(ref(m, k, n, transA, transB, a, b).data(), out, 1e-6 * k, 1e-5,
                String.format("%s %dx%dx%d transA=%b transB=%b threads=%d", path, m, k, n, transA, transB, threads));
    }

    @ParameterizedTest(name = "{0}x{1}x{2}")
    @MethodSource("shapes")
    void javaKernels_everyTransposeAndThreadCount_matchReference(int m, int k, int n) {
        for (boolean transA : new boolean[] {false, true}) {
            for (boolean transB : new boolean[] {false, true}) {
                for (int threads : new int[] {1, 2}) {
                    check(m, k, n, transA, transB, threads, "java");
                }
            }
        }
    }

    /**
     * A batch of activations times one weight ({@code x [B, S, K] . W [K, N]}), which the kernel runs as one
     * product of {@code B * S} rows, plain and with a bias-and-ReLU epilogue (fused by the optimiser), against
     * the float64 product of each batch item; a transposed A keeps the batch loop.
     */
    @Test
    void batchOverOneWeight_matchesEachItemsProduct_withAndWithoutEpilogue() {
        int batch = 5, s = 7, k = 67, n = 131;
        Random r = new Random(11);
        for (boolean transA : new boolean[] {false, true}) {
            for (boolean transB : new boolean[] {false, true}) {
                for (boolean epilogue : new boolean[] {false, true}) {
                    Ref a = transA ? Ref.random(r, -1, 1, batch, k, s) : Ref.random(r, -1, 1, batch, s, k);
                    Ref w = transB ? Ref.random(r, -1, 1, n, k) : Ref.random(r, -1, 1, k, n);
                    Ref bias = Ref.random(r, -1, 1, n);
                    Graph g = new Graph("batched");
                    Value av = g.input("a", Shape.of(DType.F32, a.dims()));
                    Value y = g.apply1(new Op.MatMul(transA, transB), av,
                            g.input("w", Shape.of(DType.F32, w.dims())));
                    if (epilogue) {
                        y = g.relu(g.add(y, g.input("bias", Shape.of(DType.F32, n))));
                    }
                    g.setOutputs(y);
                    double[] want = new double[batch * s * n];
                    for (int b = 0; b < batch; b++) {
                        Ref item = Ref.zeros(transA ? k : s, transA ? s : k);
                        System.arraycopy(a.data(), b * s * k, item.data(), 0, s * k);
                        double[] c = ref(s, k, n, transA, transB, item, w).data();
                        for (int i = 0; i < s * n; i++) {
                            double v = epilogue ? Math.max(0, c[i] + bias.data()[i % n]) : c[i];
                            want[b * s * n + i] = v;
                        }
                    }
                    for (int threads : new int[] {1, 2}) {
                        double[] got = Runner.run(g, epilogue ? Map.of("a", a, "w", w, "bias", bias)
                                : Map.of("a", a, "w", w), threads).get(0);
                        assertClose(want, got, 1e-6 * k, 1e-5, String.format("transA=%b transB=%b epilogue=%b"
                                + " threads=%d", transA, transB, epilogue, threads));
                    }
                }
            }
        }
    }

    @Test
    void splitKGemv_givesTheSameBitsOnEveryRun() {
        // blocks of K go to whichever thread is free; the partials are summed in block order, so the result
        // must not depend on that assignment
        Random r = new Random(5);
        int k = 4099;
        int n = 1031;
        float[] a = new float[k];
        float[] b = new float[k * n];
        for (int i = 0; i < a.length; i++) {
            a[i] = (float) (r.nextDouble() * 2 - 1);
        }
        for (int i = 0; i < b.length; i++) {
            b[i] = (float) (r.nextDouble() * 2 - 1);
        }
        Graph g = new Graph("gemv");
        g.setOutputs(g.matmul(g.input("a", Shape.of(DType.F32, 1, k)), g.param("b", Shape.of(DType.F32, k, n))));
        try (Session s = new Session(Device.CPU, CompileOptions.defaults().withThreads(2));
             CompiledGraph c = s.compile(g)) {
            c.setInput("a", a);
            c.setParam("b", b);
            c.run();
            float[] first = new float[n];
            c.output(0).copyTo(first);
            float[] again = new float[n];
            for (int run = 0; run < 50; run++) {
                c.run();
                c.output(0).copyTo(again);
                assertArrayEquals(first, again, "run " + run);
            }
        }
    }

    @ParameterizedTest(name = "{0}x{1}x{2}")
    @MethodSource("shapes")
    void openBlas_everyTranspose_matchesReference(int m, int k, int n) {
        Assumptions.assumeTrue(OpenBlas.load().isPresent(), "OpenBLAS not found: the native path is not tested");
        String before = System.getProperty("RLX_CPU_BLAS");
        System.setProperty("RLX_CPU_BLAS", "openblas");
        try {
            for (boolean transA : new boolean[] {false, true}) {
                for (boolean transB : new boolean[] {false, true}) {
                    check(m, k, n, transA, transB, 2, "openblas");
                }
            }
        } finally {
            if (before == null) {
                System.clearProperty("RLX_CPU_BLAS");
            } else {
                System.setProperty("RLX_CPU_BLAS", before);
            }
        }
    }
}
