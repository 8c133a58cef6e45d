package dev.rlx.runtime.devices;

import dev.rlx.runtime.Device;

/**
 * A backend's measured costs, as stored in its calibration file. Every rate is in GFLOP/s or GB/s and every
 * overhead in ns, and the field names say so: nothing is ever stored in FLOP/s.
 *
 * @param schemaVersion      {@link #SCHEMA_VERSION} when written; any other value means re-measure
 * @param device             the device measured
 * @param backend            the backend's name (its thread count and vector width are part of it)
 * @param fingerprint        the host's {@code HwSnapshot.fingerprint()}
 * @param smallGemmGflops    GEMM rate at {@link Calibrator#SMALL} (m·k·n below {@link #SMALL_WORK})
 * @param largeGemmGflops    GEMM rate at {@link Calibrator#LARGE}
 * @param roundtripNs        one run of a one-kernel graph, submit to done
 * @param dispatchNs         one more kernel in a run
 * @param memoryBwGbps       device-to-device copy bandwidth
 * @param hostReadbackGbps   host-device copy bandwidth
 * @param unifiedMemory      whether buffers are host memory (no copies in or out)
 * @param measuredAtEpochMs  when it was measured
 */
public record Calibration(int schemaVersion, Device device, String backend, String fingerprint, double smallGemmGflops,
        double largeGemmGflops, double roundtripNs, double dispatchNs, double memoryBwGbps, double hostReadbackGbps,
        boolean unifiedMemory, long measuredAtEpochMs) {
    public static final int SCHEMA_VERSION = 1;
    /** GEMMs with m·k·n below this use the small rate. */
    public static final long SMALL_WORK = 1L << 18;

    /** Throws {@link CostModelException} when a number is outside its unit's range. */
    public Calibration validated() {
        CostUnits.check(model());
        return this;
    }

    /** The cost model these measurements give. */
    public BackendCostModel model() {
        Calibration c = this;
        return new BackendCostModel() {
            @Override
            public Device device() {
                return c.device;
            }

            @Override
            public double sgemmGflops(long m, long k, long n) {
                return m * k * n < SMALL_WORK ? c.smallGemmGflops : c.largeGemmGflops;
            }

            @Override
            public double dispatchOverheadNs() {
                return c.dispatchNs;
            }

            @Override
            public double roundtripOverheadNs() {
                return c.roundtripNs;
            }

            @Override
            public double memoryBwGbps() {
                return c.memoryBwGbps;
            }

            @Override
            public double hostReadbackBwGbps() {
                return c.hostReadbackGbps;
            }

            @Override
            public boolean unifiedMemory() {
                return c.unifiedMemory;
            }

            @Override
            public String toString() {
                return "calibrated " + c;
            }
        };
    }
}
