package dev.rlx.runtime.devices;

import dev.rlx.runtime.Device;

/**
 * Constants for a backend that could not be measured (the seed's fallbacks): used only when calibration fails.
 *
 * @param smallGemmGflops GFLOP/s below {@link Calibration#SMALL_WORK}
 * @param largeGemmGflops GFLOP/s at or above it
 */
public record HeuristicCostModel(Device device, double smallGemmGflops, double largeGemmGflops, double dispatchOverheadNs,
        double roundtripOverheadNs, double memoryBwGbps, double hostReadbackBwGbps, boolean unifiedMemory)
        implements BackendCostModel {

    /** The seed's figures per device kind: a generic x86 CPU, a data-centre CUDA or ROCm card, a mid-range GPU. */
    public static HeuristicCostModel of(Device d) {
        return switch (d) {
            case CPU -> new HeuristicCostModel(d, 32, 200, 300, 3_000, 30, 30, true);
            case CUDA -> new HeuristicCostModel(d, 500, 12_000, 5_000, 35_000, 900, 25, false);
            case ROCM -> new HeuristicCostModel(d, 400, 10_000, 6_000, 40_000, 800, 25, false);
            case METAL, MLX, ANE -> new HeuristicCostModel(d, 100, 2_000, 2_000, 150_000, 200, 200, true);
            default -> new HeuristicCostModel(d, 50, 1_000, 10_000, 50_000, 200, 10, false);
        };
    }

    @Override
    public double sgemmGflops(long m, long k, long n) {
        return m * k * n < Calibration.SMALL_WORK ? smallGemmGflops : largeGemmGflops;
    }
}
