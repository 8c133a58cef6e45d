package dev.rlx.runtime.devices;

import dev.rlx.runtime.Device;

/**
 * What running work on one backend costs, in fixed units: GFLOP/s (= FLOP per ns) for compute, ns for overheads,
 * GB/s (= bytes per ns) for bandwidth. A cost in ns is then {@code flops / gflops} or {@code bytes / gbps}.
 * {@link CostUnits#check} rejects a model whose numbers are in other units (FLOP/s, bytes/s, seconds).
 */
public interface BackendCostModel {
    Device device();

    /** Sustained single-precision GEMM rate for an {@code m x k} by {@code k x n} product, in GFLOP/s. */
    double sgemmGflops(long m, long k, long n);

    /** Fixed cost of one kernel launch, in ns. */
    double dispatchOverheadNs();

    /** Fixed cost of one forward pass (submit and wait), in ns. */
    double roundtripOverheadNs();

    /** Device memory bandwidth, in GB/s (bytes per ns). */
    double memoryBwGbps();

    /** Host-to-device and device-to-host copy bandwidth, in GB/s. */
    default double hostReadbackBwGbps() {
        return memoryBwGbps();
    }

    /** Whether the device reads host memory directly (the CPU): no copies in or out. */
    default boolean unifiedMemory() {
        return false;
    }
}
