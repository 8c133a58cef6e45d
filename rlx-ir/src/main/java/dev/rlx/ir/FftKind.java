package dev.rlx.ir;

/**
 * What an {@link Op.Fft} computes along its axis, with {@code W = e^{-2 pi i / n}} (before the
 * {@link FftNorm} scaling). Each constant is named after the numpy.fft function it matches.
 */
public enum FftKind {
    /** {@code fft}: complex to complex, {@code X[k] = sum_t x[t] W^{kt}}. */
    C2C_FORWARD("fft"),
    /** {@code ifft}: complex to complex, {@code x[t] = sum_k X[k] W^{-kt}}. */
    C2C_INVERSE("ifft"),
    /** {@code rfft}: real to complex, bins {@code 0..n/2} of the forward transform (the rest are their conjugates). */
    R2C("rfft"),
    /**
     * {@code irfft}: complex to real, the inverse transform of the Hermitian spectrum whose bins {@code 0..n/2} are
     * given (bin {@code n-k} is the conjugate of bin k); the imaginary parts of bin 0 and, for even n, bin n/2 do
     * not contribute.
     */
    C2R("irfft");

    private final String label;

    FftKind(String label) {
        this.label = label;
    }

    /** Whether the transform runs backward ({@code W^{-kt}}): {@link #C2C_INVERSE} and {@link #C2R}. */
    public boolean inverse() {
        return this == C2C_INVERSE || this == C2R;
    }

    /** The numpy.fft name: {@code fft}, {@code ifft}, {@code rfft} or {@code irfft}. */
    public String label() {
        return label;
    }
}
