package dev.rlx.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rlx.testkit.Close;
import dev.rlx.testkit.reference.Dft;
import dev.rlx.testkit.reference.Ref;
import dev.rlx.cpu.testing.Runner;
import dev.rlx.ir.DType;
import dev.rlx.ir.FftKind;
import dev.rlx.ir.FftNorm;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Fft kernels against a float64 direct DFT ({@link Dft}) on random data: every length 1..64 for every kind,
 * assorted large lengths (primes that need Bluestein, powers of two up to 2^20 on the vector path, powers of
 * three, mixed radices), inverse(forward) round trips, Parseval, the norm modes, non-last axes and batches.
 *
 * <p>Tolerance: the largest error over the compared values at most {@code tol * rms(expected)}, with
 * {@code tol = 5e-7 (1 + log2 n)} for f32 and c64 and {@code 2e-14 (1 + log2 n)} for f64, the usual growth of
 * FFT rounding error with the number of passes (an f32 transform of random data lands near 1e-7).
 */
class FftKernelsTest {

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

    // ---------------------------------------------------------------- every length 1..64

    static Stream<Arguments> smallLengths() {
        return Stream.of(DType.F32, DType.C64, DType.F64)
                .flatMap(t -> IntStream.rangeClosed(1, 64).mapToObj(n -> Arguments.of(t, n)));
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("smallLengths")
    void c2c_lengths1To64_matchDirectDft(DType t, int n) {
        Random r = new Random(n);
        double[] x = randomComplex(r, n);
        Dft dft = new Dft(n);
        assertSpectrum(dft.transform(x, false),
                runFft(FftKind.C2C_FORWARD, t, new int[] {n}, 0, FftNorm.BACKWARD, n, x, 1), t, n, "fft " + t + " n=" + n);
        assertSpectrum(scaled(dft.transform(x, true), 1.0 / n),
                runFft(FftKind.C2C_INVERSE, t, new int[] {n}, 0, FftNorm.BACKWARD, n, x, 1), t, n, "ifft " + t + " n=" + n);
    }

    static Stream<Arguments> smallRealLengths() {
        return Stream.of(DType.F32, DType.F64)
                .flatMap(t -> IntStream.rangeClosed(1, 64).mapToObj(n -> Arguments.of(t, n)));
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("smallRealLengths")
    void r2c_lengths1To64_matchDirectDft(DType t, int n) {
        double[] x = Ref.random(new Random(100 + n), -1, 1, n).data();
        assertSpectrum(new Dft(n).real(x), runFft(FftKind.R2C, t, new int[] {n}, 0, FftNorm.BACKWARD, n, x, 1), t, n,
                "rfft " + t + " n=" + n);
    }

    /** Random bins, including imaginary parts at bin 0 and n/2, which irfft must ignore (as numpy does). */
    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("smallRealLengths")
    void c2r_lengths1To64_matchHermitianInverse(DType t, int n) {
        double[] spectrum = randomComplex(new Random(200 + n), n / 2 + 1);
        double[] expected = scaled(new Dft(n).hermitianInverse(spectrum), 1.0 / n);
        assertSpectrum(expected, runFft(FftKind.C2R, t, new int[] {n / 2 + 1}, 0, FftNorm.BACKWARD, n, spectrum, 1),
                t, n, "irfft " + t + " n=" + n);
    }

    @Test
    void c2r_c64Input_givesF32() {
        int n = 10;
        double[] spectrum = randomComplex(new Random(3), n / 2 + 1);
        double[] expected = scaled(new Dft(n).hermitianInverse(spectrum), 1.0 / n);
        assertSpectrum(expected, runFft(FftKind.C2R, DType.C64, new int[] {n / 2 + 1}, 0, FftNorm.BACKWARD, n, spectrum,
                1), DType.F32, n, "irfft c64");
    }

    // ---------------------------------------------------------------- large lengths

    static Stream<Arguments> largeLengths() {
        return Stream.of(
                Arguments.of(DType.C64, 1 << 10), Arguments.of(DType.C64, 1 << 12), Arguments.of(DType.C64, 1 << 16),
                Arguments.of(DType.C64, 1 << 20), Arguments.of(DType.F32, 1 << 13),
                Arguments.of(DType.C64, 59049),        // 3^10
                Arguments.of(DType.C64, 1000),         // 4 2 5 5 5
                Arguments.of(DType.C64, 4096 * 3),
                Arguments.of(DType.C64, 3 * 7 * 61),   // largest direct prime radix
                Arguments.of(DType.C64, 257),          // primes past the direct radices: Bluestein
                Arguments.of(DType.C64, 1009),
                Arguments.of(DType.C64, 65537),
                Arguments.of(DType.F64, 1 << 20), Arguments.of(DType.F64, 65537), Arguments.of(DType.F64, 59049),
                Arguments.of(DType.F64, 2 * 1009));
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
    @ValueSource(ints = {1 << 9, 1 << 10, 1 << 20, 1000, 1009, 4096 * 3})
    void r2c_largeLengths_matchDirectDftBins(int n) {
        Random r = new Random(n);
        double[] x = Ref.random(r, -1, 1, n).data();
        double[] y = runFft(FftKind.R2C, DType.F32, new int[] {n}, 0, FftNorm.BACKWARD, n, x, 0);
        int[] bins = sampleBins(n / 2 + 1, r);
        assertBins(new Dft(n), Dft.complex(x), false, 1, y, bins, DType.F32, n, "rfft n=" + n);
    }

    // ---------------------------------------------------------------- round trips and Parseval

    static Stream<Arguments> roundTripCases() {
        return Stream.of(DType.C64, DType.F64).flatMap(t -> IntStream.of(1, 2, 7, 12, 256, 1000, 1024, 4099, 1 << 16)
                .mapToObj(n -> Arguments.of(t, n)));
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("roundTripCases")
    void c2c_inverseOfForward_isIdentity(DType t, int n) {
        double[] x = randomComplex(new Random(n), n);
        for (FftNorm norm : List.of(FftNorm.BACKWARD, FftNorm.ORTHO, FftNorm.FORWARD)) {
            Graph g = new Graph("roundtrip");
            Shape s = t == DType.C64 ? Shape.of(t, n) : Shape.of(t, n, 2);
            Value in = g.input("x", s);
            g.setOutputs(g.fft(g.fft(in, FftKind.C2C_FORWARD, 0, norm, n), FftKind.C2C_INVERSE, 0, norm, n));
            double[] back = Runner.run(g, Map.of("x", feed(t, x, s))).get(0);
            assertSpectrum(x, back, t, n, "ifft(fft(x)) " + norm + " n=" + n);
        }
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("roundTripCases")
    void r2c_irfftOfRfft_isIdentity(DType t, int n) {
        DType real = t == DType.C64 ? DType.F32 : t;
        double[] x = Ref.random(new Random(n), -1, 1, n).data();
        Graph g = new Graph("roundtrip");
        Value in = g.input("x", Shape.of(real, n));
        g.setOutputs(g.fft(g.fft(in, FftKind.R2C, 0, FftNorm.BACKWARD, n), FftKind.C2R, 0, FftNorm.BACKWARD, n));
        assertSpectrum(x, Runner.run(g, Map.of("x", x)).get(0), real, n, "irfft(rfft(x)) n=" + n);
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("roundTripCases")
    void fft_parseval_energyIsKept(DType t, int n) {
        double[] x = randomComplex(new Random(n), n);
        double[] y = runFft(FftKind.C2C_FORWARD, t, new int[] {n}, 0, FftNorm.ORTHO, n, x, 0);
        double ex = 0;
        double ey = 0;
        for (int i = 0; i < x.length; i++) {
            ex += x[i] * x[i];
            ey += y[i] * y[i];
        }
        // with the unitary (ortho) transform sum |X|^2 = sum |x|^2
        assertEquals(ex, ey, ex * tol(t, n), "Parseval " + t + " n=" + n);
    }

    // ---------------------------------------------------------------- norms, axes, batches

    @ParameterizedTest
    @EnumSource(FftNorm.class)
    void fft_normModes_scaleAsNumpy(FftNorm norm) {
        for (int n : new int[] {12, 512}) {
            Random r = new Random(n);
            double[] x = randomComplex(r, n);
            double[] real = Ref.random(r, -1, 1, n).data();
            Dft dft = new Dft(n);
            assertSpectrum(scaled(dft.transform(x, false), norm.scale(false, n)),
                    runFft(FftKind.C2C_FORWARD, DType.F32, new int[] {n}, 0, norm, n, x, 1), DType.F32, n, "fft " + norm);
            assertSpectrum(scaled(dft.transform(x, true), norm.scale(true, n)),
                    runFft(FftKind.C2C_INVERSE, DType.F32, new int[] {n}, 0, norm, n, x, 1), DType.F32, n, "ifft " + norm);
            assertSpectrum(scaled(dft.real(real), norm.scale(false, n)),
                    runFft(FftKind.R2C, DType.F32, new int[] {n}, 0, norm, n, real, 1), DType.F32, n, "rfft " + norm);
            double[] half = randomComplex(r, n / 2 + 1);
            assertSpectrum(scaled(dft.hermitianInverse(half), norm.scale(true, n)),
                    runFft(FftKind.C2R, DType.F32, new int[] {n / 2 + 1}, 0, norm, n, half, 1), DType.F32, n,
                    "irfft " + norm);
        }
    }

    /** {@code [lines, n]} data (line-major, each line interleaved if complex) laid out along {@code axis} of a rank-3 tensor. */
    record Layout(int[] dims, int axis) {
        int lines() {
            int l = 1;
            for (int d = 0; d < dims.length; d++) {
                l *= d == axis ? 1 : dims[d];
            }
            return l;
        }

        /** Flat element index of element j of line l (lines row-major over the other dims). */
        int index(int line, int j) {
            int[] idx = new int[dims.length];
            int rest = line;
            for (int d = dims.length - 1; d >= 0; d--) {
                if (d == axis) {
                    continue;
                }
                idx[d] = rest % dims[d];
                rest /= dims[d];
            }
            idx[axis] = j;
            int flat = 0;
            for (int d = 0; d < dims.length; d++) {
                flat = flat * dims[d] + idx[d];
            }
            return flat;
        }
    }

    static Stream<Arguments> axisCases() {
        return Stream.of(FftKind.values()).flatMap(k -> Stream.of(
                Arguments.of(k, DType.F32, 512, 0), Arguments.of(k, DType.F32, 512, 1), Arguments.of(k, DType.F32, 512, 2),
                Arguments.of(k, DType.F32, 12, 0), Arguments.of(k, DType.F64, 12, 1), Arguments.of(k, DType.C64, 256, 1)))
                .filter(a -> !(a.get()[0] == FftKind.R2C && a.get()[1] == DType.C64));
    }

    /** Every line of a {@code [3, n, 5]}-style batch along each axis against the direct DFT of that line. */
    @ParameterizedTest(name = "{0} {1} n={2} axis={3}")
    @MethodSource("axisCases")
    void fft_anyAxisAndBatch_eachLineMatchesDirectDft(FftKind kind, DType t, int n, int axis) {
        int[] base = {3, 2, 5};
        int inLen = kind == FftKind.C2R ? n / 2 + 1 : n;
        int outLen = kind == FftKind.R2C ? n / 2 + 1 : n;
        boolean complexIn = kind != FftKind.R2C;
        boolean complexOut = kind != FftKind.C2R;
        int[] inDims = base.clone();
        inDims[axis] = inLen;
        int[] outDims = base.clone();
        outDims[axis] = outLen;
        Layout in = new Layout(inDims, axis);
        Layout out = new Layout(outDims, axis);
        int width = complexIn ? 2 : 1;
        double[] data = Ref.random(new Random(n + axis), -1, 1, in.lines() * inLen * width).data();
        double[] y = runFft(kind, t, inDims, axis, FftNorm.BACKWARD, n, data, 2);
        Dft dft = new Dft(n);
        int outWidth = complexOut ? 2 : 1;
        for (int l = 0; l < in.lines(); l++) {
            double[] line = new double[inLen * width];
            for (int j = 0; j < inLen; j++) {
                for (int c = 0; c < width; c++) {
                    line[j * width + c] = data[in.index(l, j) * width + c];
                }
            }
            double[] expected = switch (kind) {
                case C2C_FORWARD -> dft.transform(line, false);
                case C2C_INVERSE -> scaled(dft.transform(line, true), 1.0 / n);
                case R2C -> dft.real(line);
                case C2R -> scaled(dft.hermitianInverse(line), 1.0 / n);
            };
            double[] got = new double[outLen * outWidth];
            for (int j = 0; j < outLen; j++) {
                for (int c = 0; c < outWidth; c++) {
                    got[j * outWidth + c] = y[out.index(l, j) * outWidth + c];
                }
            }
            assertSpectrum(expected, got, t, n, kind + " " + t + " axis " + axis + " line " + l);
        }
    }

    @Test
    void fft_emptyBatch_runs() {
        Graph g = new Graph("empty");
        Value x = g.input("x", Shape.of(DType.F32, 0, 8));
        g.setOutputs(g.fft(x, FftKind.R2C, 1, FftNorm.BACKWARD, 8));
        assertEquals(0, Runner.run(g, Map.of("x", new float[0])).get(0).length);
    }
}
