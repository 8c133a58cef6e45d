package dev.rlx.cuda;

import dev.rlx.hw.GpuThermal;
import java.util.Locale;
import java.util.Optional;

/**
 * One CUDA device as the driver reports it: its ordinal, name, compute capability (what NVRTC compiles for),
 * memory and multiprocessors, and its NVML reading when NVML sees it (the same index: NVML and CUDA agree unless
 * {@code CUDA_VISIBLE_DEVICES} or {@code CUDA_DEVICE_ORDER} reorder them).
 */
public record CudaDeviceInfo(int ordinal, String name, int ccMajor, int ccMinor, long totalMemory,
                             int multiprocessors, boolean memoryPools, Optional<GpuThermal> telemetry) {
    /** {@code "sm_90"}: the architecture kernels are compiled for. */
    public String arch() {
        return "sm_" + ccMajor + ccMinor;
    }

    /** One line for device listings: name, architecture, memory, SMs, and temperature, power and load if known. */
    public String describe() {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "cuda:%d %s (%s, %.1f GiB, %d SMs%s)",
                ordinal, name, arch(), totalMemory / (1024.0 * 1024 * 1024), multiprocessors,
                memoryPools ? ", memory pools" : ""));
        telemetry.ifPresent(t -> {
            if (t.tempC() != null) {
                sb.append(String.format(Locale.ROOT, ", %.0f C", t.tempC()));
            }
            if (t.powerW() != null) {
                sb.append(String.format(Locale.ROOT, ", %.0f W", t.powerW()));
                if (t.powerCapW() != null) {
                    sb.append(String.format(Locale.ROOT, " of %.0f W", t.powerCapW()));
                }
            }
            if (t.utilPercent() != null) {
                sb.append(", ").append(t.utilPercent()).append("% busy");
            }
            if (t.smClockMhz() != null) {
                sb.append(", ").append(t.smClockMhz()).append(" MHz");
            }
        });
        return sb.toString();
    }
}
