package dev.rlx.testkit;

import static org.junit.jupiter.api.Assertions.fail;

/** Tolerance checks with messages that show where and by how much results differ. */
public final class Close {
    private Close() {}

    /**
     * Fails unless {@code |actual - expected| <= atol + rtol * |expected|} everywhere (NaN matches NaN, and
     * infinities must match exactly).
     */
    public static void assertClose(double[] expected, double[] actual, double atol, double rtol, String what) {
        if (expected.length != actual.length) {
            fail(what + ": expected " + expected.length + " values but got " + actual.length);
        }
        double worst = 0;
        int worstAt = -1;
        for (int i = 0; i < expected.length; i++) {
            double e = expected[i];
            double a = actual[i];
            if (Double.isNaN(e) || Double.isNaN(a) || Double.isInfinite(e) || Double.isInfinite(a)) {
                if (Double.compare(e, a) != 0 && !(Double.isNaN(e) && Double.isNaN(a))) {
                    fail(what + ": at " + i + " expected " + e + " but got " + a);
                }
                continue;
            }
            double err = Math.abs(a - e) - rtol * Math.abs(e);
            if (err > worst) {
                worst = err;
                worstAt = i;
            }
        }
        if (worst > atol) {
            fail(String.format("%s: at %d expected %.9g but got %.9g (|diff| %.3g > atol %.1g + rtol %.1g * |expected|)",
                    what, worstAt, expected[worstAt], actual[worstAt], Math.abs(actual[worstAt] - expected[worstAt]),
                    atol, rtol));
        }
    }
}
