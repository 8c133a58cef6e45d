package dev.rlx.testkit;

import java.util.Locale;

/**
 * How close a backend's output element must be to the reference's: exactly (bit for bit, any NaN matching any
 * NaN), or within {@code atol + rtol * |expected| + rmsFactor * rms}, where {@code rms} is the root mean square of
 * the expected output counted per complex value ({@code sqrt(sum v^2 / (scalars / 2))}, the scale FFT errors
 * grow with). NaN must match NaN and infinities must match exactly in every mode. Each bound carries the reason
 * it is as loose as it is.
 */
public record Tolerance(double atol, double rtol, double rmsFactor, boolean exact, String reason) {
    public Tolerance {
        if (!(atol >= 0) || !(rtol >= 0) || !(rmsFactor >= 0)) {
            throw new IllegalArgumentException("tolerances must be >= 0: atol " + atol + ", rtol " + rtol + ", rms "
                    + rmsFactor);
        }
        if (reason == null || reason.isBlank()) {
            throw new IllegalArgumentException("a tolerance needs its reason");
        }
    }

    /** Bit-for-bit equality: for copies, selections, integer arithmetic and exactly rounded results. */
    public static Tolerance exact(String reason) {
        return new Tolerance(0, 0, 0, true, reason);
    }

    /** {@code |actual - expected| <= atol + rtol * |expected|}. */
    public static Tolerance of(double atol, double rtol, String reason) {
        return new Tolerance(atol, rtol, 0, false, reason);
    }

    /** {@code |actual - expected| <= factor * rms(expected)}: errors that scale with the whole output (FFTs). */
    public static Tolerance spectral(double factor, String reason) {
        return new Tolerance(0, 0, factor, false, reason);
    }

    /** The largest difference allowed at an element whose reference value is {@code expected}. */
    public double bound(double expected, double rms) {
        return atol + rtol * Math.abs(expected) + rmsFactor * rms;
    }

    @Override
    public String toString() {
        if (exact) {
            return "exact (" + reason + ")";
        }
        String terms = rmsFactor > 0 ? String.format(Locale.ROOT, "%.2g * rms", rmsFactor)
                : String.format(Locale.ROOT, "atol %.1g + rtol %.1g * |expected|", atol, rtol);
        return terms + " (" + reason + ")";
    }
}
