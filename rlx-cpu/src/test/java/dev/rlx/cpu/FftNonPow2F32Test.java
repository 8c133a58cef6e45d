package dev.rlx.cpu;

import static dev.rlx.cpu.FftLargeLengthsTest.randomComplex;
import static dev.rlx.cpu.FftLargeLengthsTest.runFft;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.rlx.ir.DType;
import dev.rlx.ir.FftKind;
import dev.rlx.ir.FftNorm;
import dev.rlx.testkit.Close;
import dev.rlx.testkit.reference.Dft;
import dev.rlx.testkit.reference.Ref;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * f32 and c64 FFTs of lengths that are not powers of two (odd, prime and smooth ones; the longer ones run as f32
 * Bluestein on the vector FFT, even ones as two half-length Bluesteins, the short ones on the double path) against the whole float64 direct DFT, for
 * complex forward and inverse, rfft and irfft, over batches of lines along the last axis and strided lines
 * along the first, and run to run bit for bit.
 *
 * <p>Tolerance: the largest error at most {@code 5e-7 (1 + log2 n)} times the rms of the expected values, as
 * in {@link FftLargeLengthsTest}; for n = 4093 that is 6.5e-6 of the rms, well under 1e-5 of the largest bin.
 */
class FftNonPow2F32Test {
    private static final int LINES = 3;

    /** Line j of {@code count} values of {@code width} doubles laid out as lines x count (or count x lines). */
    private static double[] line(double[] data, int j, int count, int width, boolean strided) {
        double[] out = new double[count * width];
        for (int t = 0; t < count; t++) {
            int at = strided ? t * LINES + j : j * count + t;
            System.arraycopy(data, at * width, out, t * width, width);
        }
        return out;
    }

    private static void assertClose(double[] expected, double[] actual, DType t, int n, String what) {
        double rms = Dft.rms(expected, expected.length);
        Close.assertClose(expected, actual, FftLargeLengthsTest.tol(t, n) * rms, 0, what);
    }

    @ParameterizedTest(name = "n={0}")
    @ValueSource(ints = {3, 7, 97, 1000, 1009, 4093, 6000})
    void complex_forwardAndInverse_matchDirectDft(int n) {
        Dft dft = new Dft(n);
        for (DType t : new DType[] {DType.F32, DType.C64}) {
            for (boolean strided : new boolean[] {false, true}) {
                int[] dims = strided ? new int[] {n, LINES} : new int[] {LINES, n};
                int axis = strided ? 0 : 1;
                double[] x = randomComplex(new Random(n), LINES * n);
                for (FftKind kind : new FftKind[] {FftKind.C2C_FORWARD, FftKind.C2C_INVERSE}) {
                    FftNorm norm = kind == FftKind.C2C_FORWARD ? FftNorm.BACKWARD : FftNorm.ORTHO;
                    double scale = kind == FftKind.C2C_FORWARD ? 1 : 1 / Math.sqrt(n);
                    double[] y = runFft(kind, t, dims, axis, norm, n, x, 1);
                    double[] again = runFft(kind, t, dims, axis, norm, n, x, 1);
                    assertArrayEquals(y, again, kind + " " + t + " n=" + n + " run to run");
                    for (int j = 0; j < LINES; j++) {
                        double[] want = dft.transform(line(x, j, n, 2, strided), kind == FftKind.C2C_INVERSE);
                        assertClose(FftLargeLengthsTest.scaled(want, scale), line(y, j, n, 2, strided), t, n,
                                kind + " " + t + " n=" + n + " strided=" + strided + " line " + j);
                    }
                }
            }
        }
    }

    @ParameterizedTest(name = "n={0}")
    @ValueSource(ints = {3, 7, 97, 1000, 1009, 4093, 6000})
    void real_forwardAndInverse_matchDirectDft(int n) {
        Dft dft = new Dft(n);
        int bins = n / 2 + 1;
        for (boolean strided : new boolean[] {false, true}) {
            int[] dims = strided ? new int[] {n, LINES} : new int[] {LINES, n};
            int[] specDims = strided ? new int[] {bins, LINES} : new int[] {LINES, bins};
            int axis = strided ? 0 : 1;
            double[] x = Ref.random(new Random(n), -1, 1, LINES * n).data();
            double[] y = runFft(FftKind.R2C, DType.F32, dims, axis, FftNorm.BACKWARD, n, x, 1);
            assertArrayEquals(y, runFft(FftKind.R2C, DType.F32, dims, axis, FftNorm.BACKWARD, n, x, 1),
                    "rfft n=" + n + " run to run");
            double[] spec = randomComplex(new Random(n + 1), LINES * bins);
            double[] z = runFft(FftKind.C2R, DType.F32, specDims, axis, FftNorm.BACKWARD, n, spec, 1);
            assertArrayEquals(z, runFft(FftKind.C2R, DType.F32, specDims, axis, FftNorm.BACKWARD, n, spec, 1),
                    "irfft n=" + n + " run to run");
            for (int j = 0; j < LINES; j++) {
                assertClose(dft.real(line(x, j, n, 1, strided)), line(y, j, bins, 2, strided), DType.F32, n,
                        "rfft n=" + n + " strided=" + strided + " line " + j);
                double[] want = FftLargeLengthsTest.scaled(dft.hermitianInverse(line(spec, j, bins, 2, strided)), 1.0 / n);
                assertClose(want, line(z, j, n, 1, strided), DType.F32, n,
                        "irfft n=" + n + " strided=" + strided + " line " + j);
            }
        }
    }
}
