package dev.rlx.cpu;

import static dev.rlx.testkit.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.rlx.testkit.reference.Ref;
import dev.rlx.cpu.testing.Runner;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** numpy.matmul semantics against a float64 triple loop. */
class MatMulKernelTest {

    /** Reference numpy.matmul on Refs, including rank-1 operands and broadcast batch dims. */
    static Ref matmulRef(Ref a, Ref b) {
        int[] ad = a.rank() == 1 ? new int[] {1, a.dim(0)} : a.dims();
        int[] bd = b.rank() == 1 ? new int[] {b.dim(0), 1} : b.dims();
        int m = ad[ad.length - 2];
        int k = ad[ad.length - 1];
        int n = bd[bd.length - 1];
        int[] abatch = Arrays.copyOf(ad, ad.length - 2);
        int[] bbatch = Arrays.copyOf(bd, bd.length - 2);
        int r = Math.max(abatch.length, bbatch.length);
        int[] batch = new int[r];
        for (int i = 0; i < r; i++) {
            int x = i - (r - abatch.length) >= 0 ? abatch[i - (r - abatch.length)] : 1;
            int y = i - (r - bbatch.length) >= 0 ? bbatch[i - (r - bbatch.length)] : 1;
            batch[i] = x == 1 ? y : x;
        }
        Ref a2 = new Ref(ad, a.data());
        Ref b2 = new Ref(bd, b.data());
        int[] full = Arrays.copyOf(batch, r + 2);
        full[r] = m;
        full[r + 1] = n;
        Ref c = Ref.zeros(full);
        for (int f = 0; f < c.size(); f++) {
            int[] idx = c.unravel(f);
            double s = 0;
            for (int p = 0; p < k; p++) {
                int[] ai = Arrays.copyOf(idx, r + 2);
                ai[r + 1] = p;
                int[] bi = Arrays.copyOf(idx, r + 2);
                bi[r] = p;
                s += atBatch(a2, ai) * atBatch(b2, bi);
            }
            c.data()[f] = s;
        }
        return c;
    }

    /** Reads {@code t} at a full-rank index, broadcasting its (possibly fewer) batch dims. */
    private static double atBatch(Ref t, int[] idx) {
        return t.atBroadcast(idx);
    }

    static Stream<Arguments> shapes() {
        return Stream.of(
                Arguments.of(new int[] {1, 4}, new int[] {4, 2}),
                Arguments.of(new int[] {7, 13}, new int[] {13, 19}),        // ragged rows and columns
                Arguments.of(new int[] {5, 1}, new int[] {1, 33}),          // K = 1
                Arguments.of(new int[] {1, 300}, new int[] {300, 700}),     // GEMV-like, two column blocks
                Arguments.of(new int[] {13}, new int[] {13, 6}),            // vector x matrix
                Arguments.of(new int[] {6, 13}, new int[] {13}),            // matrix x vector
                Arguments.of(new int[] {17}, new int[] {17}),               // dot product -> scalar
                Arguments.of(new int[] {2, 1, 5, 8}, new int[] {3, 8, 9}),  // batch broadcast both ways
                Arguments.of(new int[] {4, 6, 10}, new int[] {10, 3}),      // batched x shared matrix
                Arguments.of(new int[] {2, 7}, new int[] {4, 7, 5}),        // shared x batched
                Arguments.of(new int[] {3, 0}, new int[] {0, 4}),           // K = 0 gives zeros
                Arguments.of(new int[] {0, 5}, new int[] {5, 4}));          // M = 0
    }

    @ParameterizedTest
    @MethodSource("shapes")
    void matmul_f32_matchesReference(int[] ad, int[] bd) {
        Random r = new Random(Arrays.hashCode(ad) * 31L + Arrays.hashCode(bd));
        Ref a = Ref.random(r, -1, 1, ad);
        Ref b = Ref.random(r, -1, 1, bd);
        Graph g = new Graph("mm");
        g.setOutputs(g.matmul(g.input("a", Shape.of(DType.F32, ad)), g.input("b", Shape.of(DType.F32, bd))));
        double[] out = Runner.run(g, Map.of("a", a, "b", b)).get(0);
        // f32 accumulation of K products in [-1, 1]: error grows like sqrt(K) * 6e-8; 1e-5 covers K <= 1000.
        assertClose(matmulRef(a, b).data(), out, 1e-5, 1e-5, "matmul f32");
    }

    @ParameterizedTest
    @MethodSource("shapes")
    void matmul_f64_matchesReference(int[] ad, int[] bd) {
        Random r = new Random(1 + Arrays.hashCode(ad));
        Ref a = Ref.random(r, -1, 1, ad);
        Ref b = Ref.random(r, -1, 1, bd);
        Graph g = new Graph("mm");
        g.setOutputs(g.matmul(g.input("a", Shape.of(DType.F64, ad)), g.input("b", Shape.of(DType.F64, bd))));
        double[] out = Runner.run(g, Map.of("a", a.data(), "b", b.data())).get(0);
        assertClose(matmulRef(a, b).data(), out, 1e-12, 1e-12, "matmul f64");
    }

    @Test
    void matmul_large_parallelMatchesReference() {
        Random r = new Random(42);
        Ref a = Ref.random(r, -1, 1, 130, 384);
        Ref b = Ref.random(r, -1, 1, 384, 517);
        Graph g = new Graph("mm");
        g.setOutputs(g.matmul(g.input("a", Shape.of(DType.F32, 130, 384)), g.input("b", Shape.of(DType.F32, 384, 517))));
        for (int threads : new int[] {1, 2}) {
            double[] out = Runner.run(g, Map.of("a", a, "b", b), threads).get(0);
            assertClose(matmulRef(a, b).data(), out, 2e-5, 1e-5, "matmul 130x384x517, threads " + threads);
        }
    }

    @Test
    void matmul_integers_exactAndWrapping() {
        Graph g = new Graph("mm");
        g.setOutputs(g.matmul(g.input("a", Shape.of(DType.I64, 2, 3)), g.input("b", Shape.of(DType.I64, 3, 2))));
        double[] out = Runner.run(g, Map.of("a", new long[] {1, 2, 3, 4, 5, 6}, "b", new long[] {7, 8, 9, 10, 11, 12}))
                .get(0);
        assertArrayEquals(new double[] {58, 64, 139, 154}, out);
        g = new Graph("mm32");
        g.setOutputs(g.matmul(g.input("a", Shape.of(DType.I32, 1, 2)), g.input("b", Shape.of(DType.I32, 2, 1))));
        out = Runner.run(g, Map.of("a", new int[] {Integer.MAX_VALUE, 1}, "b", new int[] {1, 1})).get(0);
        assertArrayEquals(new double[] {Integer.MIN_VALUE}, out); // wraps at 32 bits like Java int
    }

    @Test
    void matmul_halfInputs_accumulateWide() {
        Random r = new Random(9);
        Ref a = Ref.random(r, -1, 1, 4, 256);
        Ref b = Ref.random(r, -1, 1, 256, 3);
        Graph g = new Graph("mm16");
        g.setOutputs(g.matmul(g.input("a", Shape.of(DType.BF16, 4, 256)), g.input("b", Shape.of(DType.BF16, 256, 3))));
        double[] out = Runner.run(g, Map.of("a", a, "b", b)).get(0);
        // inputs round to bf16 (8 bits of mantissa): relative error ~4e-3 per product, averaging over 256 terms
        assertClose(matmulRef(a, b).data(), out, 0.05, 0.02, "matmul bf16");
    }
}
