package dev.rlx.ir;

import java.util.List;

/**
 * numpy.fft-style signal processing, each helper appending ordinary IR ops ({@link Op.Fft}, slices, gathers,
 * element-wise arithmetic, reductions) to a {@link Graph}: transforms with numpy's length semantics, sample
 * frequencies, power spectra, the short-time Fourier transform and FFT convolution.
 *
 * <p>Spectra are F32/F64 tensors whose last dim of 2 holds (re, im) pairs, the layout {@code rfft} returns,
 * because element-wise ops compute on real dtypes. C64 has the same bytes as F32 pairs; {@link #fft},
 * {@link #ifft} and {@link #irfft} accept it, while the helpers that do arithmetic on spectra ({@link #psd},
 * {@link #complexMul}, {@link #abs2}) need pairs. Axes may be negative and count signal dims (never the pair
 * dim). Bad operands throw {@link ShapeException} naming the helper.
 */
public final class Signal {
    private Signal() {}

    // ---------------------------------------------------------------- transforms

    /** {@code numpy.fft.fft(x)} of complex {@code x} along its last signal axis. */
    public static Value fft(Graph g, Value x) {
        return fft(g, x, lastLength(FftKind.C2C_FORWARD, x), -1, FftNorm.BACKWARD);
    }

    /**
     * {@code numpy.fft.fft(x, n, axis, norm)} of complex {@code x} (C64 or pairs): the axis is cropped or
     * zero-padded to {@code n} first. Real signals go through {@link #rfft}, or a cast to C64.
     */
    public static Value fft(Graph g, Value x, int n, int axis, FftNorm norm) {
        return transform(g, x, FftKind.C2C_FORWARD, n, axis, norm);
    }

    /** {@code numpy.fft.ifft(x)} of complex {@code x} along its last signal axis. */
    public static Value ifft(Graph g, Value x) {
        return ifft(g, x, lastLength(FftKind.C2C_INVERSE, x), -1, FftNorm.BACKWARD);
    }

    /** {@code numpy.fft.ifft(x, n, axis, norm)}: the axis cropped or zero-padded to {@code n}, then inverted. */
    public static Value ifft(Graph g, Value x, int n, int axis, FftNorm norm) {
        return transform(g, x, FftKind.C2C_INVERSE, n, axis, norm);
    }

    /** {@code numpy.fft.rfft(x)} of real {@code x} along its last axis: pairs {@code [.., n/2+1, 2]}. */
    public static Value rfft(Graph g, Value x) {
        return rfft(g, x, lastLength(FftKind.R2C, x), -1, FftNorm.BACKWARD);
    }

    /**
     * {@code numpy.fft.rfft(x, n, axis, norm)}: real F32/F64 {@code x} cropped or zero-padded to any
     * {@code n >= 1} along {@code axis}, then bins {@code 0..n/2} as pairs {@code [.., n/2+1, .., 2]}.
     */
    public static Value rfft(Graph g, Value x, int n, int axis, FftNorm norm) {
        return transform(g, x, FftKind.R2C, n, axis, norm);
    }

    /** {@code numpy.fft.irfft(X)}: a real signal of length {@code 2(m-1)} from {@code m} bins on the last axis. */
    public static Value irfft(Graph g, Value spectrum) {
        int m = lastLength(FftKind.C2R, spectrum);
        return irfft(g, spectrum, 2 * (m - 1), -1, FftNorm.BACKWARD);
    }

    /**
     * {@code numpy.fft.irfft(X, n, axis, norm)}: the real length-{@code n} signal whose spectrum is Hermitian
     * with bins {@code 0..n/2} from {@code X} (cropped or zero-padded to {@code n/2+1} bins along {@code axis});
     * the other half is the mirrored conjugate, and the imaginary parts of bin 0 and (even n) bin n/2 are
     * ignored. C64 gives F32, pairs their own dtype.
     */
    public static Value irfft(Graph g, Value spectrum, int n, int axis, FftNorm norm) {
        return transform(g, spectrum, FftKind.C2R, n, axis, norm);
    }

    private static Value transform(Graph g, Value x, FftKind kind, int n, int axis, FftNorm norm) {
        String op = kind.label();
        ShapeRules.positive(op, "n", n);
        int a = ShapeRules.axis(op, axis, Math.max(0, Op.Fft.signalRank(kind, x.shape())));
        int length = kind == FftKind.C2R ? n / 2 + 1 : n;
        Op.Fft fft = new Op.Fft(kind, a, norm, n);
        fft.outputShapes(List.of(x.shape().withDim(a, length))); // reject a bad operand before adding any node
        return g.apply1(fft, fit(g, x, a, length));
    }

    /** Crops or zero-pads {@code x} along {@code axis} to {@code length}, as numpy's {@code n} argument does. */
    private static Value fit(Graph g, Value x, int axis, int length) {
        Shape s = x.shape();
        if (s.dim(axis) == length) {
            return x;
        }
        if (s.dim(axis) > length) {
            return g.narrow(x, axis, 0, length);
        }
        return g.concat(axis, x, zeros(g, s.withDim(axis, length - s.dim(axis))));
    }

    private static int lastLength(FftKind kind, Value x) {
        int rank = Op.Fft.signalRank(kind, x.shape());
        if (rank < 1) {
            throw ShapeRules.fail(kind.label(), "x %s has no signal axis", x.shape());
        }
        return x.shape().dim(rank - 1);
    }

    // ---------------------------------------------------------------- sample frequencies

    /**
     * {@code numpy.fft.fftfreq(n, d)}: the F64 constant {@code [0, 1, .., ceil(n/2)-1, -floor(n/2), .., -1]}
     * times {@code 1/(n d)}, so for even n the Nyquist bin n/2 is negative, as in numpy.
     */
    public static Value fftfreq(Graph g, int n, double d) {
        return g.constant(Tensor.of(fftfreqValues(n, d), n));
    }

    /** {@code numpy.fft.rfftfreq(n, d)}: the F64 constant {@code [0, 1, .., n/2]} times {@code 1/(n d)}. */
    public static Value rfftfreq(Graph g, int n, double d) {
        return g.constant(Tensor.of(rfftfreqValues(n, d), n / 2 + 1));
    }

    /** The values of {@link #fftfreq}, computed as numpy does: integer bin index times {@code 1.0/(n*d)}. */
    public static double[] fftfreqValues(int n, double d) {
        double val = checkFreq("fftfreq", n, d);
        double[] out = new double[n];
        int positive = (n - 1) / 2 + 1;
        for (int i = 0; i < n; i++) {
            out[i] = (i < positive ? i : i - n) * val;
        }
        return out;
    }

    /** The values of {@link #rfftfreq}: {@code k * (1.0/(n*d))} for {@code k = 0..n/2}. */
    public static double[] rfftfreqValues(int n, double d) {
        double val = checkFreq("rfftfreq", n, d);
        double[] out = new double[n / 2 + 1];
        for (int i = 0; i < out.length; i++) {
            out[i] = i * val;
        }
        return out;
    }

    private static double checkFreq(String op, int n, double d) {
        ShapeRules.positive(op, "n", n);
        if (!(d > 0) || Double.isInfinite(d)) {
            throw ShapeRules.fail(op, "sample spacing d must be positive and finite but is %s", d);
        }
        return 1.0 / (n * d);
    }

    // ---------------------------------------------------------------- complex pairs

    /** {@code a * b} for (re, im) pairs {@code [.., 2]} of equal dtype, other dims broadcast. */
    public static Value complexMul(Graph g, Value a, Value b) {
        requirePairs("complex_mul", a, "a");
        requirePairs("complex_mul", b, "b");
        Value ar = g.narrow(a, -1, 0, 1);
        Value ai = g.narrow(a, -1, 1, 1);
        Value br = g.narrow(b, -1, 0, 1);
        Value bi = g.narrow(b, -1, 1, 1);
        Value re = g.sub(g.mul(ar, br), g.mul(ai, bi));
        Value im = g.add(g.mul(ar, bi), g.mul(ai, br));
        return g.concat(-1, re, im);
    }

    /** {@code |z|^2 = re^2 + im^2} of pairs {@code [.., 2]}, dropping the pair dim. */
    public static Value abs2(Graph g, Value z) {
        requirePairs("abs2", z, "z");
        return g.reduceSum(g.mul(z, z), false, -1);
    }

    private static void requirePairs(String op, Value z, String role) {
        Shape s = z.shape();
        if (!(s.dtype() == DType.F32 || s.dtype() == DType.F64) || s.rank() < 1 || s.dim(s.rank() - 1) != 2) {
            throw ShapeRules.fail(op, "%s %s must be f32 or f64 (re, im) pairs with a last dim of 2", role, s);
        }
    }

    // ---------------------------------------------------------------- power spectra

    /**
     * The two-sided periodogram of a spectrum of a length-{@code n} signal sampled at {@code fs}:
     * {@code |X[k]|^2 / (fs n)} per bin (scipy.signal.periodogram with a boxcar window, no detrending,
     * {@code scaling='density'}, {@code return_onesided=False}). {@code spectrum} is pairs from {@link #fft} or
     * {@link #rfft}; the result drops the pair dim. Summed over all n bins it is {@code sum x^2 / fs} (Parseval).
     */
    public static Value psd(Graph g, Value spectrum, int n, double fs) {
        ShapeRules.positive("psd", "n", n);
        checkRate("psd", fs);
        requirePairs("psd", spectrum, "spectrum");
        Value p = abs2(g, spectrum);
        return g.mul(p, g.scalar(p.shape().dtype(), 1.0 / (fs * n)));
    }

    /**
     * The one-sided periodogram of real {@code x [.., n]} sampled at {@code fs}, along its last axis:
     * {@code |rfft(x)[k]|^2 / (fs n)} with bins {@code 1..ceil(n/2)-1} doubled (the Nyquist bin of an even n is
     * not), so the {@code n/2+1} values sum to {@code sum x^2 / fs}. Equals scipy.signal.periodogram(x, fs,
     * window='boxcar', detrend=False, scaling='density').
     */
    public static Value psdReal(Graph g, Value x, double fs) {
        checkRate("psd_real", fs);
        requireReal("psd_real", x, "x");
        int n = lastLength(FftKind.R2C, x);
        Value p = abs2(g, rfft(g, x));
        double[] w = new double[n / 2 + 1];
        for (int k = 0; k < w.length; k++) {
            boolean single = k == 0 || (n % 2 == 0 && k == n / 2);
            w[k] = (single ? 1.0 : 2.0) / (fs * n);
        }
        return g.mul(p, constant(g, p.shape().dtype(), w, w.length));
    }

    private static void checkRate(String op, double fs) {
        if (!(fs > 0) || Double.isInfinite(fs)) {
            throw ShapeRules.fail(op, "sample rate fs must be positive and finite but is %s", fs);
        }
    }

    // ---------------------------------------------------------------- windows and STFT

    /**
     * The periodic Hann window of length {@code n} ({@code 0.5 - 0.5 cos(2 pi k / n)}, the DFT-even form of
     * scipy.signal.get_window('hann', n) and torch.hann_window), as a constant of {@code dtype} (F32 or F64);
     * {@code [1]} for n = 1.
     */
    public static Value hannWindow(Graph g, DType dtype, int n) {
        ShapeRules.positive("hann_window", "n", n);
        if (dtype != DType.F32 && dtype != DType.F64) {
            throw ShapeRules.fail("hann_window", "dtype must be f32 or f64 but is %s", dtype.label());
        }
        double[] w = new double[n];
        for (int k = 0; k < n; k++) {
            w[k] = n == 1 ? 1 : 0.5 - 0.5 * Math.cos(2 * Math.PI * k / n);
        }
        return constant(g, dtype, w, n);
    }

    /**
     * The short-time Fourier transform of real {@code x [.., T]} along its last axis: frames of {@code nFft}
     * samples every {@code hop}, each multiplied by {@code window} ({@code [nFft]} of x's dtype; null for a
     * rectangular one) and {@code rfft}'d, unscaled. Returns pairs {@code [.., frames, nFft/2+1, 2]}, frames first
     * as tf.signal.stft (torch and librosa put the bins first: swap the two axes).
     *
     * <p>With {@code center}, x is first padded by {@code nFft/2} samples at each end by reflection (without
     * repeating the edge sample), so frame t is centred on sample {@code t*hop}: torch.stft(center=True,
     * pad_mode='reflect'), which needs {@code T > nFft/2}. Frames: {@code 1 + (T' - nFft) / hop} over the padded
     * length T', which must be at least nFft.
     */
    public static Value stft(Graph g, Value x, Value window, int nFft, int hop, boolean center) {
        ShapeRules.positive("stft", "nFft", nFft);
        ShapeRules.positive("stft", "hop", hop);
        requireReal("stft", x, "x");
        if (window != null && !window.shape().equals(Shape.of(x.shape().dtype(), nFft))) {
            throw ShapeRules.fail("stft", "window must be %s but is %s", Shape.of(x.shape().dtype(), nFft),
                    window.shape());
        }
        int t = x.shape().dim(x.shape().rank() - 1);
        Value padded = x;
        int pad = center ? nFft / 2 : 0;
        if (pad > 0) {
            if (pad >= t) {
                throw ShapeRules.fail("stft", "reflect padding of nFft/2 = %d needs more than %d samples in x %s", pad,
                        pad, x.shape());
            }
            Value left = g.slice(x, -1, pad, pad, -1);       // x[pad], .., x[1]
            Value right = g.slice(x, -1, t - 2, pad, -1);    // x[T-2], .., x[T-1-pad]
            padded = g.concat(-1, left, x, right);
        }
        int length = t + 2 * pad;
        if (length < nFft) {
            throw ShapeRules.fail("stft", "x %s has %d samples%s, fewer than nFft = %d", x.shape(), length,
                    pad > 0 ? " after padding" : "", nFft);
        }
        int frames = 1 + (length - nFft) / hop;
        int[] idx = new int[frames * nFft];
        for (int f = 0; f < frames; f++) {
            for (int j = 0; j < nFft; j++) {
                idx[f * nFft + j] = f * hop + j;
            }
        }
        Value framed = g.gather(padded, g.constant(Tensor.of(idx, frames, nFft)), -1); // [.., frames, nFft]
        if (window != null) {
            framed = g.mul(framed, window);
        }
        return g.fft(framed, FftKind.R2C, -1, FftNorm.BACKWARD, nFft);
    }

    // ---------------------------------------------------------------- convolution

    /**
     * The full linear convolution {@code y[t] = sum_j x[j] k[t-j]} of real {@code x [.., Lx]} and
     * {@code k [.., Lk]} (equal dtypes, batch dims broadcast) along the last axis, length {@code Lx + Lk - 1}
     * (numpy.convolve(x, k, 'full'), scipy.signal.fftconvolve): both are zero-padded to the next power of two at
     * least that long, multiplied in the frequency domain ({@code rfft}, {@link #complexMul}, {@code irfft}) and
     * the result trimmed.
     */
    public static Value fftConv1d(Graph g, Value x, Value k) {
        requireReal("fft_conv1d", x, "x");
        requireReal("fft_conv1d", k, "k");
        if (x.shape().dtype() != k.shape().dtype()) {
            throw ShapeRules.fail("fft_conv1d", "x %s and k %s must have the same dtype", x.shape(), k.shape());
        }
        int lx = x.shape().dim(x.shape().rank() - 1);
        int lk = k.shape().dim(k.shape().rank() - 1);
        if (lx == 0 || lk == 0) {
            throw ShapeRules.fail("fft_conv1d", "x %s and k %s must both be non-empty along the last axis", x.shape(),
                    k.shape());
        }
        long full = (long) lx + lk - 1;
        if (full > 1 << 30) {
            throw ShapeRules.fail("fft_conv1d", "the result length %d of x %s and k %s is too large", full, x.shape(),
                    k.shape());
        }
        int length = (int) full;
        int n = Integer.highestOneBit(length) == length ? length : Integer.highestOneBit(length) << 1;
        Value product = complexMul(g, rfft(g, x, n, -1, FftNorm.BACKWARD), rfft(g, k, n, -1, FftNorm.BACKWARD));
        Value y = irfft(g, product, n, -1, FftNorm.BACKWARD);
        return length == n ? y : g.narrow(y, -1, 0, length);
    }

    // ---------------------------------------------------------------- helpers

    private static void requireReal(String op, Value x, String role) {
        Shape s = x.shape();
        if ((s.dtype() != DType.F32 && s.dtype() != DType.F64) || s.rank() < 1) {
            throw ShapeRules.fail(op, "%s must be a real f32 or f64 signal of rank >= 1 but is %s", role, s);
        }
    }

    private static Value zeros(Graph g, Shape s) {
        return g.constant(Tensor.ofBytes(s, new byte[Math.toIntExact(s.byteSize())]));
    }

    private static Value constant(Graph g, DType t, double[] values, int... dims) {
        if (t == DType.F64) {
            return g.constant(Tensor.of(values, dims));
        }
        float[] f = new float[values.length];
        for (int i = 0; i < f.length; i++) {
            f[i] = (float) values[i];
        }
        return g.constant(Tensor.of(f, dims));
    }
}
