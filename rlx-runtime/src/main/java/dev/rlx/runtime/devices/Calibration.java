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

    /**
     * The slowest GEMM rate a CPU calibration may report at {@link Calibrator#LARGE}, in GFLOP/s. RLX's CPU kernels
     * compiled by C2 run that shape at tens of GFLOP/s on any core they support; interpreted (a cold JVM, or two slow
     * rounds that looked settled) they run at 0.1-0.3. A rate below this measured the JIT, not the CPU, and would make
     * every graph look a hundred times too slow on the CPU (a GPU then wins graphs it should lose).
     */
    public static final double CPU_MIN_LARGE_GEMM_GFLOPS = 2.0;

    /**
     * Throws {@link CostModelException} when a number is outside its unit's range, or when a CPU calibration's GEMM
     * rate is below {@link #CPU_MIN_LARGE_GEMM_GFLOPS} (measured before the JIT compiled the kernels).
     */
    public Calibration validated() {
        CostUnits.check(model());
        if (device == Device.CPU && largeGemmGflops < CPU_MIN_LARGE_GEMM_GFLOPS) {
            throw new CostModelException("cpu calibration's GEMM rate " + largeGemmGflops + " GFLOP/s is below "
                    + CPU_MIN_LARGE_GEMM_GFLOPS + " GFLOP/s: it timed interpreted kernels, not the CPU");
        }
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
