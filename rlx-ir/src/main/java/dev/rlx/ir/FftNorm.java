package dev.rlx.ir;

/**
 * How an {@link Op.Fft} scales its result, named as numpy.fft's {@code norm} argument.
 *
 * <table>
 *   <caption>Factor applied to a transform of length n</caption>
 *   <tr><th>norm</th><th>forward (fft, rfft)</th><th>inverse (ifft, irfft)</th></tr>
 *   <tr><td>{@link #BACKWARD} (numpy's default)</td><td>1</td><td>1/n</td></tr>
 *   <tr><td>{@link #ORTHO}</td><td>1/sqrt(n)</td><td>1/sqrt(n)</td></tr>
 *   <tr><td>{@link #FORWARD}</td><td>1/n</td><td>1</td></tr>
 *   <tr><td>{@link #NONE}</td><td>1</td><td>1</td></tr>
 * </table>
 *
 * <p>The Rust RLX named these from the other side: its {@code Forward} is {@link #BACKWARD} here, its
 * {@code Ortho} is {@link #ORTHO} and its {@code Backward} (unscaled both ways, {@code ifft(fft(x)) = n x}) is
 * {@link #NONE}; it had no equivalent of numpy's {@code "forward"}.
 */
public enum FftNorm {
    BACKWARD, ORTHO, FORWARD, NONE;

    /** The factor for a transform of length {@code n} running forward or ({@code inverse}) backward. */
    public double scale(boolean inverse, int n) {
        return switch (this) {
            case BACKWARD -> inverse ? 1.0 / n : 1.0;
            case ORTHO -> 1.0 / Math.sqrt(n);
            case FORWARD -> inverse ? 1.0 : 1.0 / n;
            case NONE -> 1.0;
        };
    }
}
