package dev.rlx.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rlx.cpu.testing.Runner;
import dev.rlx.ir.DType;
import dev.rlx.ir.FftKind;
import dev.rlx.ir.FftNorm;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.testkit.Close;
import dev.rlx.testkit.reference.Dft;
import dev.rlx.testkit.reference.Ref;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The CPU's FFT plans at lengths too long for the conformance suite's direct O(n^2) reference: powers of two up
 * to 2^20 on the vector path, powers of three, mixed radices and primes that need Bluestein, with 16 sampled bins
 * checked against the direct sum, and round trips and Parseval at 2^16. Every length up to ~4k, every norm, axis
 * and batch layout is in the conformance suite (CpuTestkitTest).
 *
 * <p>Tolerance: the largest error at most {@code tol * rms(expected)}, with {@code tol = 5e-7 (1 + log2 n)} for
 * f32 and c64 and {@code 2e-14 (1 + log2 n)} for f64, the usual growth of FFT rounding error with the number of
 * passes (an f32 transform of random data lands near 1e-7).
 */
class FftLargeLengthsTest {

    static double tol(DType t, int n) {
        double log = Math.log(n) / Math.log(2);
        return (t == DType.F64 ? 2e-14 : 5e-7) * (1 + log);
    }

    // ---------------------------------------------------------------- running one transform

    /** Random complex values (re, im interleaved), exact in f32. */
    static double[] randomComplex(Random r, int count) {
        return Ref.random(r, -1, 1, 2 * count).data();
    }

    /**
     * Runs one Fft node on {@code data} laid out as {@code dims} (signal dims; complex operands get the pair dim or
     * are C64) and returns its output as doubles (complex interleaved).
     */
    static double[] runFft(FftKind kind, DType t, int[] dims, int axis, FftNorm norm, int n, double[] data,
                           int threads) {
        Graph g = new Graph("fft");
        boolean complexIn = kind != FftKind.R2C;
        Shape shape = complexIn && t != DType.C64 ? Shape.of(t, append(dims, 2)) : Shape.of(t, dims);
        Value x = g.input("x", shape);
        g.setOutputs(g.fft(x, kind, axis, norm, n));
        return Runner.run(g, Map.of("x", feed(t, data, shape)), threads).get(0);
    }

    static Object feed(DType t, double[] data, Shape shape) {
        if (t == DType.C64) {
            ByteBuffer b = ByteBuffer.allocate(4 * data.length).order(ByteOrder.LITTLE_ENDIAN);
            for (double v : data) {
                b.putFloat((float) v);
            }
            return Tensor.ofBytes(shape, b.array());
        }
        return data;
    }

    static int[] append(int[] dims, int last) {
        int[] out = java.util.Arrays.copyOf(dims, dims.length + 1);
        out[dims.length] = last;
        return out;
    }

    static void assertSpectrum(double[] expected, double[] actual, DType t, int n, String what) {
        double rms = Dft.rms(expected, Math.max(1, expected.length / 2));
        Close.assertClose(expected, actual, tol(t, n) * Math.max(rms, 1e-30), 0, what);
    }

    static double[] scaled(double[] v, double s) {
        double[] out = v.clone();
        for (int i = 0; i < out.length; i++) {
            out[i] *= s;
        }
        return out;
    }

    // ---------------------------------------------------------------- large lengths

    static Stream<Arguments> largeLengths() {
        return Stream.of(
                Arguments.of(DType.C64, 1 << 16), Arguments.of(DType.C64, 1 << 20),
                Arguments.of(DType.C64, 59049),        // 3^10
                Arguments.of(DType.C64, 4096 * 3),
                Arguments.of(DType.C64, 65537),        // a prime past the direct radices: Bluestein
                Arguments.of(DType.F64, 1 << 20), Arguments.of(DType.F64, 65537), Arguments.of(DType.F64, 59049));
    }

    /** Sixteen bins (0, 1, n/2, n-1 and random ones) against the direct sum. */
    static int[] sampleBins(int n, Random r) {
        int[] k = new int[16];
        k[0] = 0;
        k[1] = Math.min(1, n - 1);
        k[2] = n / 2;
        k[3] = n - 1;
        for (int i = 4; i < k.length; i++) {
            k[i] = r.nextInt(n);
        }
        return k;
    }

    static void assertBins(Dft dft, double[] input, boolean inverse, double scale, double[] actual, int[] bins, DType t,
                           int n, String what) {
        double[] expected = new double[2 * bins.length];
        double[] got = new double[2 * bins.length];
        double energy = 0;
        for (int i = 0; i < input.length; i++) {
            energy += input[i] * input[i];
        }
        for (int i = 0; i < bins.length; i++) {
            double[] b = dft.bin(input, bins[i], inverse);
            expected[2 * i] = scale * b[0];
            expected[2 * i + 1] = scale * b[1];
            got[2 * i] = actual[2 * bins[i]];
            got[2 * i + 1] = actual[2 * bins[i] + 1];
        }
        // for random data the rms bin of sum_t x[t] w^kt is sqrt(sum |x|^2)
        Close.assertClose(expected, got, tol(t, n) * scale * Math.sqrt(energy), 0, what);
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("largeLengths")
    void c2c_largeLengths_matchDirectDftBins(DType t, int n) {
        Random r = new Random(n);
        double[] x = randomComplex(r, n);
        Dft dft = new Dft(n);
        int[] bins = sampleBins(n, r);
        double[] y = runFft(FftKind.C2C_FORWARD, t, new int[] {n}, 0, FftNorm.BACKWARD, n, x, 0);
        assertBins(dft, x, false, 1, y, bins, t, n, "fft " + t + " n=" + n);
        double[] back = runFft(FftKind.C2C_INVERSE, t, new int[] {n}, 0, FftNorm.ORTHO, n, x, 0);
        assertBins(dft, x, true, 1 / Math.sqrt(n), back, bins, t, n, "ifft " + t + " n=" + n);
    }

    @ParameterizedTest(name = "n={0}")
    @ValueSource(ints = {1 << 20, 4096 * 3})
    void r2c_largeLengths_matchDirectDftBins(int n) {
        Random r = new Random(n);
        double[] x = Ref.random(r, -1, 1, n).data();
        double[] y = runFft(FftKind.R2C, DType.F32, new int[] {n}, 0, FftNorm.BACKWARD, n, x, 0);
        int[] bins = sampleBins(n / 2 + 1, r);
        assertBins(new Dft(n), Dft.complex(x), false, 1, y, bins, DType.F32, n, "rfft n=" + n);
    }

    // ---------------------------------------------------------------- round trips and Parseval at 2^16

    @Test
    void roundTripsAndParseval_at65536() {
        int n = 1 << 16;
        for (DType t : List.of(DType.C64, DType.F64)) {
            double[] x = randomComplex(new Random(n), n);
            for (FftNorm norm : List.of(FftNorm.BACKWARD, FftNorm.ORTHO, FftNorm.FORWARD)) {
                Graph g = new Graph("roundtrip");
                Shape s = t == DType.C64 ? Shape.of(t, n) : Shape.of(t, n, 2);
                Value in = g.input("x", s);
                g.setOutputs(g.fft(g.fft(in, FftKind.C2C_FORWARD, 0, norm, n), FftKind.C2C_INVERSE, 0, norm, n));
                assertSpectrum(x, Runner.run(g, Map.of("x", feed(t, x, s))).get(0), t, n, "ifft(fft(x)) " + norm + " " + t);
            }
            DType real = t == DType.C64 ? DType.F32 : t;
            double[] xr = Ref.random(new Random(n), -1, 1, n).data();
            Graph g = new Graph("roundtrip");
            Value in = g.input("x", Shape.of(real, n));
            g.setOutputs(g.fft(g.fft(in, FftKind.R2C, 0, FftNorm.BACKWARD, n), FftKind.C2R, 0, FftNorm.BACKWARD, n));
            assertSpectrum(xr, Runner.run(g, Map.of("x", xr)).get(0), real, n, "irfft(rfft(x)) " + t);
            double[] y = runFft(FftKind.C2C_FORWARD, t, new int[] {n}, 0, FftNorm.ORTHO, n, x, 0);
            double ex = 0;
            double ey = 0;
            for (int i = 0; i < x.length; i++) {
                ex += x[i] * x[i];
                ey += y[i] * y[i];
            }
            // with the unitary (ortho) transform sum |X|^2 = sum |x|^2
            assertEquals(ex, ey, ex * tol(t, n), "Parseval " + t);
        }
    }
}
