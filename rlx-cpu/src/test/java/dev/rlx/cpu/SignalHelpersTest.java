package dev.rlx.cpu;

import static dev.rlx.cpu.FftLargeLengthsTest.assertSpectrum;
import static dev.rlx.cpu.FftLargeLengthsTest.randomComplex;
import static dev.rlx.cpu.FftLargeLengthsTest.scaled;
import static dev.rlx.cpu.FftLargeLengthsTest.tol;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rlx.testkit.Close;
import dev.rlx.testkit.reference.Dft;
import dev.rlx.testkit.reference.Ref;
import dev.rlx.cpu.testing.Runner;
import dev.rlx.ir.DType;
import dev.rlx.ir.FftNorm;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Signal;
import dev.rlx.ir.Value;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The {@link Signal} helpers run on the CPU backend against float64 references computed from their
 * definitions: direct DFTs, direct framing for the STFT, the direct convolution sum. Tolerances as in
 * {@link FftLargeLengthsTest}.
 */
class SignalHelpersTest {

    private static double[] fitted(double[] x, int length) {
        return Arrays.copyOf(x, length); // crops, or pads with zeros
    }

    // ---------------------------------------------------------------- transforms

    @ParameterizedTest
    @ValueSource(ints = {7, 10, 16, 1})
    void rfft_cropsOrPadsToAnyN(int n) {
        double[] x = Ref.random(new Random(n), -1, 1, 10).data();
        Graph g = new Graph("rfft");
        g.setOutputs(Signal.rfft(g, g.input("x", Shape.of(DType.F32, 10)), n, -1, FftNorm.BACKWARD));
        assertSpectrum(new Dft(n).real(fitted(x, n)), Runner.run(g, Map.of("x", x)).get(0), DType.F32, n, "rfft n=" + n);
    }

    @ParameterizedTest
    @ValueSource(ints = {5, 12, 16})
    void fft_cropsOrPadsToN(int n) {
        double[] x = randomComplex(new Random(n), 12);
        Graph g = new Graph("fft");
        Value in = g.input("x", Shape.of(DType.F64, 12, 2));
        g.setOutputs(Signal.fft(g, in, n, 0, FftNorm.BACKWARD), Signal.ifft(g, in, n, -1, FftNorm.FORWARD));
        var out = Runner.run(g, Map.of("x", x));
        Dft dft = new Dft(n);
        double[] padded = Arrays.copyOf(x, 2 * n);
        assertSpectrum(dft.transform(padded, false), out.get(0), DType.F64, n, "fft n=" + n);
        assertSpectrum(dft.transform(padded, true), out.get(1), DType.F64, n, "ifft n=" + n);
    }

    /** The spec's irfft lengths (4 to 1000, where a Gather-based mirror in the Rust original went wrong) and odd ones. */
    @ParameterizedTest
    @ValueSource(ints = {4, 8, 16, 100, 1000, 5, 101, 4096})
    void irfft_ofRfft_isIdentity(int n) {
        double[] x = Ref.random(new Random(n), -1, 1, 3, n).data();
        Graph g = new Graph("irfft");
        Value in = g.input("x", Shape.of(DType.F32, 3, n));
        Value spectrum = Signal.rfft(g, in);
        g.setOutputs(Signal.irfft(g, spectrum, n, -1, FftNorm.BACKWARD));
        assertSpectrum(x, Runner.run(g, Map.of("x", x)).get(0), DType.F32, n, "irfft(rfft(x)) n=" + n);
    }

    @Test
    void irfft_defaultLengthIsTwiceBinsMinusOne() {
        int n = 18;
        double[] spectrum = randomComplex(new Random(1), n / 2 + 1);
        Graph g = new Graph("irfft");
        g.setOutputs(Signal.irfft(g, g.input("X", Shape.of(DType.F64, n / 2 + 1, 2))));
        assertSpectrum(scaled(new Dft(n).hermitianInverse(spectrum), 1.0 / n), Runner.run(g, Map.of("X", spectrum)).get(0),
                DType.F64, n, "irfft");
    }

    /** 9 bins given: n = 8 uses 5 (the rest cropped), n = 30 pads them with zeros to 16. */
    @ParameterizedTest
    @ValueSource(ints = {8, 30, 16, 17})
    void irfft_cropsOrPadsBins(int n) {
        double[] spectrum = randomComplex(new Random(n), 9);
        Graph g = new Graph("irfft");
        g.setOutputs(Signal.irfft(g, g.input("X", Shape.of(DType.F32, 9, 2)), n, 0, FftNorm.ORTHO));
        double[] expected = scaled(new Dft(n).hermitianInverse(fitted(spectrum, 2 * (n / 2 + 1))), 1 / Math.sqrt(n));
        assertSpectrum(expected, Runner.run(g, Map.of("X", spectrum)).get(0), DType.F32, n, "irfft n=" + n);
    }

    // ---------------------------------------------------------------- spectra

    @Test
    void complexMul_matchesComplexProductWithBroadcast() {
        Random r = new Random(5);
        double[] a = randomComplex(r, 3 * 4);
        double[] b = randomComplex(r, 4);
        Graph g = new Graph("mul");
        g.setOutputs(Signal.complexMul(g, g.input("a", Shape.of(DType.F64, 3, 4, 2)), g.input("b", Shape.of(DType.F64, 4, 2))));
        double[] expected = new double[a.length];
        for (int i = 0; i < 12; i++) {
            int j = i % 4;
            expected[2 * i] = a[2 * i] * b[2 * j] - a[2 * i + 1] * b[2 * j + 1];
            expected[2 * i + 1] = a[2 * i] * b[2 * j + 1] + a[2 * i + 1] * b[2 * j];
        }
        Close.assertClose(expected, Runner.run(g, Map.of("a", a, "b", b)).get(0), 1e-15, 0, "complex_mul");
    }

    @Test
    void psd_isPowerOverFsN() {
        int n = 20;
        double fs = 8;
        double[] x = randomComplex(new Random(2), n);
        Graph g = new Graph("psd");
        Value in = g.input("x", Shape.of(DType.F64, n, 2));
        g.setOutputs(Signal.psd(g, Signal.fft(g, in), n, fs));
        double[] spectrum = new Dft(n).transform(x, false);
        double[] expected = new double[n];
        double total = 0;
        double energy = 0;
        for (int k = 0; k < n; k++) {
            expected[k] = (spectrum[2 * k] * spectrum[2 * k] + spectrum[2 * k + 1] * spectrum[2 * k + 1]) / (fs * n);
            energy += (x[2 * k] * x[2 * k] + x[2 * k + 1] * x[2 * k + 1]) / fs;
        }
        double[] got = Runner.run(g, Map.of("x", x)).get(0);
        Close.assertClose(expected, got, 1e-14, 1e-12, "psd");
        for (double v : got) {
            total += v;
        }
        assertEquals(energy, total, 1e-12 * energy, "Parseval: the psd sums to sum |x|^2 / fs");
    }

    @ParameterizedTest
    @ValueSource(ints = {16, 15, 1, 2, 1024})
    void psdReal_isOneSidedPeriodogram(int n) {
        double fs = 100;
        double[] x = Ref.random(new Random(n), -1, 1, 2, n).data();
        Graph g = new Graph("psd");
        g.setOutputs(Signal.psdReal(g, g.input("x", Shape.of(DType.F32, 2, n)), fs));
        double[] got = Runner.run(g, Map.of("x", x)).get(0);
        int bins = n / 2 + 1;
        Dft dft = new Dft(n);
        for (int row = 0; row < 2; row++) {
            double[] line = Arrays.copyOfRange(x, row * n, (row + 1) * n);
            double[] spectrum = dft.real(line);
            double[] expected = new double[bins];
            double energy = 0;
            for (int t = 0; t < n; t++) {
                energy += line[t] * line[t] / fs;
            }
            for (int k = 0; k < bins; k++) {
                // scipy.signal.periodogram(scaling='density'): |X|^2/(fs n), doubled except DC and an even n's Nyquist
                boolean single = k == 0 || (n % 2 == 0 && k == n / 2);
                double p = spectrum[2 * k] * spectrum[2 * k] + spectrum[2 * k + 1] * spectrum[2 * k + 1];
                expected[k] = (single ? 1 : 2) * p / (fs * n);
            }
            double[] rowGot = Arrays.copyOfRange(got, row * bins, (row + 1) * bins);
            Close.assertClose(expected, rowGot, tol(DType.F32, n) * energy, 0, "psdReal n=" + n);
            double total = Arrays.stream(rowGot).sum();
            assertEquals(energy, total, tol(DType.F32, n) * energy, "one-sided Parseval n=" + n);
        }
    }

    // ---------------------------------------------------------------- stft

    /** torch.stft(center, pad_mode='reflect') framing done directly: pad, cut frames, window, DFT each. */
    private static double[] directStft(double[] x, int rows, int t, double[] window, int nFft, int hop, boolean center) {
        int pad = center ? nFft / 2 : 0;
        int length = t + 2 * pad;
        int frames = 1 + (length - nFft) / hop;
        int bins = nFft / 2 + 1;
        Dft dft = new Dft(nFft);
        double[] out = new double[rows * frames * bins * 2];
        for (int row = 0; row < rows; row++) {
            double[] padded = new double[length];
            for (int i = 0; i < length; i++) {
                int src = i - pad;
                if (src < 0) {
                    src = -src;                    // reflect without repeating x[0]
                } else if (src >= t) {
                    src = 2 * (t - 1) - src;       // and without repeating x[t-1]
                }
                padded[i] = x[row * t + src];
            }
            for (int f = 0; f < frames; f++) {
                double[] frame = new double[nFft];
                for (int j = 0; j < nFft; j++) {
                    frame[j] = padded[f * hop + j] * (window == null ? 1 : window[j]);
                }
                double[] spectrum = dft.real(frame);
                System.arraycopy(spectrum, 0, out, ((row * frames) + f) * bins * 2, bins * 2);
            }
        }
        return out;
    }

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"F32", "F64"})
    void stft_matchesDirectFraming(DType t) {
        int rows = 2;
        int len = 100;
        double[] x = Ref.random(new Random(9), -1, 1, rows, len).data();
        for (boolean center : new boolean[] {true, false}) {
            for (int[] config : new int[][] {{16, 4}, {32, 7}, {512, 64}}) {
                int nFft = config[0];
                int hop = config[1];
                int length = nFft > len ? 600 : len; // the 512-point frames (vector path) need a longer signal
                double[] signal = nFft > len ? Ref.random(new Random(10), -1, 1, rows, length).data() : x;
                Graph g = new Graph("stft");
                Value in = g.input("x", Shape.of(t, rows, length));
                Value window = center ? Signal.hannWindow(g, t, nFft) : null;
                g.setOutputs(Signal.stft(g, in, window, nFft, hop, center));
                double[] w = new double[nFft];
                for (int j = 0; j < nFft; j++) {
                    w[j] = 0.5 - 0.5 * Math.cos(2 * Math.PI * j / nFft);
                }
                double[] expected = directStft(signal, rows, length, center ? w : null, nFft, hop, center);
                assertSpectrum(expected, Runner.run(g, Map.of("x", signal)).get(0), t, nFft,
                        "stft nFft=" + nFft + " hop=" + hop + " center=" + center);
            }
        }
    }

    // ---------------------------------------------------------------- convolution

    private static double[] directConvolution(double[] x, int lx, double[] k, int lk) {
        double[] y = new double[lx + lk - 1];
        for (int i = 0; i < lx; i++) {
            for (int j = 0; j < lk; j++) {
                y[i + j] += x[i] * k[j];
            }
        }
        return y;
    }

    private static double norm(double[] v) {
        return Math.sqrt(Arrays.stream(v).map(d -> d * d).sum());
    }

    /** Sizes: one where Lx + Lk - 1 is a power of two, odd ones, and long ones on the vector path. */
    @ParameterizedTest
    @ValueSource(strings = {"F32 50 7", "F64 50 7", "F32 33 32", "F64 1 1", "F32 1 9", "F32 4096 1000", "F64 3000 333"})
    void fftConv1d_matchesDirectConvolution(String spec) {
        String[] parts = spec.split(" ");
        DType t = DType.valueOf(parts[0]);
        int lx = Integer.parseInt(parts[1]);
        int lk = Integer.parseInt(parts[2]);
        Random r = new Random(lx * 31L + lk);
        int batch = 3;
        double[] x = Ref.random(r, -1, 1, batch, lx).data();
        double[] k = Ref.random(r, -1, 1, lk).data();
        Graph g = new Graph("conv");
        g.setOutputs(Signal.fftConv1d(g, g.input("x", Shape.of(t, batch, lx)), g.input("k", Shape.of(t, lk))));
        double[] got = Runner.run(g, Map.of("x", x, "k", k)).get(0);
        int ly = lx + lk - 1;
        int nFft = Integer.highestOneBit(ly) == ly ? ly : Integer.highestOneBit(ly) << 1;
        for (int b = 0; b < batch; b++) {
            double[] xb = Arrays.copyOfRange(x, b * lx, (b + 1) * lx);
            double[] expected = directConvolution(xb, lx, k, lk);
            // each output is a dot product of x with a shifted k, at most |x| |k|
            Close.assertClose(expected, Arrays.copyOfRange(got, b * ly, (b + 1) * ly),
                    tol(t, nFft) * norm(xb) * norm(k), 0, "fftConv1d " + spec + " row " + b);
        }
    }

    @Test
    void fftConv1d_broadcastsBatchDims() {
        Random r = new Random(4);
        double[] x = Ref.random(r, -1, 1, 2, 1, 8).data();
        double[] k = Ref.random(r, -1, 1, 1, 3, 5).data();
        Graph g = new Graph("conv");
        g.setOutputs(Signal.fftConv1d(g, g.input("x", Shape.of(DType.F64, 2, 1, 8)), g.input("k", Shape.of(DType.F64, 1, 3, 5))));
        double[] got = Runner.run(g, Map.of("x", x, "k", k)).get(0);
        for (int i = 0; i < 2; i++) {
            for (int j = 0; j < 3; j++) {
                double[] expected = directConvolution(Arrays.copyOfRange(x, i * 8, i * 8 + 8), 8,
                        Arrays.copyOfRange(k, j * 5, j * 5 + 5), 5);
                int at = (i * 3 + j) * 12;
                Close.assertClose(expected, Arrays.copyOfRange(got, at, at + 12), 1e-13, 0, "batch " + i + "," + j);
            }
        }
    }
}
