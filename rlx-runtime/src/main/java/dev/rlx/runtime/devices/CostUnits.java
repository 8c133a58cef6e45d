package dev.rlx.runtime.devices;

import java.util.Locale;

/**
 * Plausibility bounds that tell the units apart. No device sustains more than 10^7 GFLOP/s (10 PFLOP/s), and none
 * less than 10^-3 GFLOP/s, so a rate given in FLOP/s (at least 10^8 for any real processor) cannot pass; the same for
 * bandwidth in bytes/s against GB/s, and overheads in seconds or ms against ns.
 */
public final class CostUnits {
    static final double MAX_GFLOPS = 1e7;
    static final double MIN_GFLOPS = 1e-3;
    static final double MAX_GBPS = 1e5;
    static final double MIN_GBPS = 1e-3;
    static final double MIN_OVERHEAD_NS = 1;
    static final double MAX_OVERHEAD_NS = 1e9;

    private CostUnits() {}

    /**
     * Checks every number {@code m} reports (GEMM rates at a small and a large shape) is finite and in range.
     *
     * @throws CostModelException naming the device, the quantity, its value and the range of its unit
     */
    public static BackendCostModel check(BackendCostModel m) {
        String who = m.device().label();
        gflops(who + " sgemm 8x64x64", m.sgemmGflops(8, 64, 64));
        gflops(who + " sgemm 512x512x512", m.sgemmGflops(512, 512, 512));
        gbps(who + " memory bandwidth", m.memoryBwGbps());
        gbps(who + " host read-back bandwidth", m.hostReadbackBwGbps());
        ns(who + " dispatch overhead", m.dispatchOverheadNs());
        ns(who + " round-trip overhead", m.roundtripOverheadNs());
        return m;
    }

    static double gflops(String what, double v) {
        return range(what, v, MIN_GFLOPS, MAX_GFLOPS, "GFLOP/s (FLOP per ns; a FLOP/s figure must be divided by 1e9)");
    }

    static double gbps(String what, double v) {
        return range(what, v, MIN_GBPS, MAX_GBPS, "GB/s (bytes per ns)");
    }

    static double ns(String what, double v) {
        return range(what, v, MIN_OVERHEAD_NS, MAX_OVERHEAD_NS, "ns");
    }

    private static double range(String what, double v, double lo, double hi, String unit) {
        if (!Double.isFinite(v) || v < lo || v > hi) {
            throw new CostModelException(String.format(Locale.ROOT, "%s is %g but must be in [%g, %g] %s", what, v, lo, hi, unit));
        }
        return v;
    }
}
