package dev.rlx.ir;

import static dev.rlx.ir.Check.f32;
import static dev.rlx.ir.Check.in;
import static dev.rlx.ir.Check.rejects;
import static dev.rlx.ir.Check.s;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * What the {@link Signal} helpers build: result shapes, numpy's length semantics and the frequency constants.
 * Their numbers are checked on the CPU backend (rlx-cpu {@code SignalHelpersTest}).
 */
class SignalShapeTest {

    // ---------------------------------------------------------------- frequencies

    @Test
    void fftfreq_matchesNumpyForEvenAndOddN() {
        // numpy.fft.fftfreq(8, 0.1): the Nyquist bin n/2 is negative
        assertArrayEquals(new double[] {0, 1.25, 2.5, 3.75, -5, -3.75, -2.5, -1.25}, Signal.fftfreqValues(8, 0.1), 0);
        assertArrayEquals(new double[] {0, 0.2, 0.4, -0.4, -0.2}, Signal.fftfreqValues(5, 1), 0);
        assertArrayEquals(new double[] {0, 0.25, -0.5, -0.25}, Signal.fftfreqValues(4, 1), 0);
        assertArrayEquals(new double[] {0}, Signal.fftfreqValues(1, 2), 0);
        assertArrayEquals(new double[] {0, -0.5}, Signal.fftfreqValues(2, 1), 0);
    }

    @Test
    void rfftfreq_matchesNumpyForEvenAndOddN() {
        assertArrayEquals(new double[] {0, 1.25, 2.5, 3.75, 5}, Signal.rfftfreqValues(8, 0.1), 0);
        assertArrayEquals(new double[] {0, 0.2, 0.4}, Signal.rfftfreqValues(5, 1), 0);
        assertArrayEquals(new double[] {0}, Signal.rfftfreqValues(1, 1), 0);
    }

    @Test
    void fftfreq_isAnF64Constant() {
        Graph g = new Graph("f");
        Value f = Signal.fftfreq(g, 6, 0.5);
        assertEquals(s(DType.F64, 6), f.shape());
        Tensor t = ((Op.Constant) f.node().op()).value();
        assertArrayEquals(Signal.fftfreqValues(6, 0.5), t.toDoubleArray(), 0);
        assertEquals(s(DType.F64, 4), Signal.rfftfreq(g, 6, 0.5).shape());
    }

    @Test
    void fftfreq_badArguments_rejected() {
        rejects("fftfreq", () -> Signal.fftfreqValues(0, 1), "n must be positive");
        rejects("rfftfreq", () -> Signal.rfftfreqValues(4, 0), "d must be positive");
        rejects("fftfreq", () -> Signal.fftfreqValues(4, Double.NaN), "d must be positive");
    }

    // ---------------------------------------------------------------- transforms

    @Test
    void rfft_cropsOrPadsToN() {
        Graph g = new Graph("f");
        Value x = in(g, f32(3, 10));
        assertEquals(f32(3, 5, 2), Signal.rfft(g, x, 8, -1, FftNorm.BACKWARD).shape());
        assertEquals(f32(3, 9, 2), Signal.rfft(g, x, 16, 1, FftNorm.BACKWARD).shape());
        assertEquals(f32(2, 10, 2), Signal.rfft(g, x, 3, 0, FftNorm.BACKWARD).shape());
        assertEquals(f32(3, 6, 2), Signal.rfft(g, x).shape());
    }

    @Test
    void irfft_defaultNIsTwiceBinsMinusOne() {
        Graph g = new Graph("f");
        Value spectrum = in(g, f32(2, 5, 2));
        assertEquals(f32(2, 8), Signal.irfft(g, spectrum).shape());
        assertEquals(f32(2, 9), Signal.irfft(g, spectrum, 9, -1, FftNorm.BACKWARD).shape());
        assertEquals(f32(2, 30), Signal.irfft(g, spectrum, 30, -1, FftNorm.BACKWARD).shape()); // 5 bins padded to 16
        assertEquals(f32(2, 4), Signal.irfft(g, spectrum, 4, -1, FftNorm.BACKWARD).shape());   // cropped to 3
        Value c = in(g, DType.C64, 5);
        assertEquals(f32(8), Signal.irfft(g, c).shape());
    }

    @Test
    void fft_acceptsC64AndPairs() {
        Graph g = new Graph("f");
        assertEquals(s(DType.C64, 4, 16), Signal.fft(g, in(g, DType.C64, 4, 12), 16, -1, FftNorm.ORTHO).shape());
        assertEquals(s(DType.F64, 6, 2), Signal.ifft(g, in(g, DType.F64, 6, 2)).shape());
    }

    @Test
    void transforms_badOperands_rejected() {
        Graph g = new Graph("f");
        Value c = in(g, DType.C64, 8);
        Value x = in(g, f32(8));
        rejects(g, "rfft", () -> Signal.rfft(g, c), "real", "c64[8]");
        rejects(g, "irfft", () -> Signal.irfft(g, x, 0, -1, FftNorm.BACKWARD), "n must be positive");
        rejects(g, "fft", () -> Signal.fft(g, x, 8, 3, FftNorm.BACKWARD), "axis 3");
    }

    // ---------------------------------------------------------------- spectra, stft, convolution

    @Test
    void psd_dropsThePairDim() {
        Graph g = new Graph("f");
        assertEquals(f32(3, 5), Signal.psd(g, in(g, f32(3, 5, 2)), 8, 1).shape());
        assertEquals(s(DType.F64, 5), Signal.psdReal(g, in(g, DType.F64, 9), 100).shape());
    }

    @Test
    void psd_badOperands_rejected() {
        Graph g = new Graph("f");
        Value c = in(g, DType.C64, 5);
        Value x = in(g, f32(5, 2));
        rejects(g, "psd", () -> Signal.psd(g, c, 8, 1), "pairs", "c64[5]");
        rejects(g, "psd", () -> Signal.psd(g, x, 8, 0), "fs must be positive");
        rejects(g, "psd_real", () -> Signal.psdReal(g, c, 1), "real", "c64[5]");
    }

    @Test
    void stft_framesAndBins() {
        Graph g = new Graph("f");
        Value x = in(g, f32(2, 100));
        Value w = Signal.hannWindow(g, DType.F32, 16);
        // centred: 100 + 2*8 samples -> 1 + (116 - 16) / 4 = 26 frames
        assertEquals(f32(2, 26, 9, 2), Signal.stft(g, x, w, 16, 4, true).shape());
        // not centred: 1 + (100 - 16) / 5 = 17 frames
        assertEquals(f32(2, 17, 9, 2), Signal.stft(g, x, null, 16, 5, false).shape());
    }

    @Test
    void stft_readmeExample_shapes() {
        Graph g = new Graph("readme");
        Value x = g.input("x", Shape.of(DType.F32, 4, 16000));
        Value spec = Signal.stft(g, x, Signal.hannWindow(g, DType.F32, 512), 512, 128, true);
        assertEquals(f32(4, 126, 257, 2), spec.shape());
        assertEquals(f32(4, 126, 257), Signal.abs2(g, spec).shape());
    }

    @Test
    void stft_badArguments_rejected() {
        Graph g = new Graph("f");
        Value x = in(g, f32(10));
        Value w = in(g, f32(8));
        Value c = in(g, DType.C64, 10);
        rejects(g, "stft", () -> Signal.stft(g, x, null, 32, 4, false), "fewer than nFft = 32");
        rejects(g, "stft", () -> Signal.stft(g, x, null, 24, 4, true), "reflect padding of nFft/2 = 12");
        rejects(g, "stft", () -> Signal.stft(g, x, w, 4, 1, false), "window must be f32[4]", "f32[8]");
        rejects(g, "stft", () -> Signal.stft(g, x, null, 4, 0, false), "hop must be positive");
        rejects(g, "stft", () -> Signal.stft(g, c, null, 4, 1, false), "real", "c64[10]");
    }

    @Test
    void hannWindow_isPeriodic() {
        Graph g = new Graph("f");
        // scipy.signal.get_window('hann', 4) = [0, 0.5, 1, 0.5]
        Tensor t = ((Op.Constant) Signal.hannWindow(g, DType.F64, 4).node().op()).value();
        assertArrayEquals(new double[] {0, 0.5, 1, 0.5}, t.toDoubleArray(), 1e-15);
        Tensor one = ((Op.Constant) Signal.hannWindow(g, DType.F32, 1).node().op()).value();
        assertArrayEquals(new double[] {1}, one.toDoubleArray(), 0);
    }

    @Test
    void fftConv1d_fullLengthAndBroadcastBatch() {
        Graph g = new Graph("f");
        assertEquals(f32(3, 14), Signal.fftConv1d(g, in(g, f32(3, 10)), in(g, f32(5))).shape());
        assertEquals(f32(2, 3, 16), Signal.fftConv1d(g, in(g, f32(1, 3, 8)), in(g, f32(2, 1, 9))).shape());
    }

    @Test
    void fftConv1d_badOperands_rejected() {
        Graph g = new Graph("f");
        Value x = in(g, f32(4));
        Value d = in(g, DType.F64, 4);
        Value e = in(g, f32(0));
        rejects(g, "fft_conv1d", () -> Signal.fftConv1d(g, x, d), "same dtype");
        rejects(g, "fft_conv1d", () -> Signal.fftConv1d(g, x, e), "non-empty");
    }

    @Test
    void complexMul_needsPairs() {
        Graph g = new Graph("f");
        Value a = in(g, f32(3, 2));
        Value b = in(g, f32(3, 3));
        assertEquals(f32(3, 2), Signal.complexMul(g, a, a).shape());
        rejects(g, "complex_mul", () -> Signal.complexMul(g, a, b), "f32[3,3]");
    }
}
