package dev.rlx.hw;

/**
 * A GPU maker whose management library RLX reads and drives: NVIDIA through NVML, AMD through ROCm SMI. The
 * runtime maps each to the device its GPUs run graphs on ({@code Device.of(GpuVendor)}: CUDA, ROCm).
 */
public enum GpuVendor {
    NVIDIA("NVIDIA"),
    AMD("AMD");

    private final String displayName;

    GpuVendor(String displayName) {
        this.displayName = displayName;
    }

    /** The maker's name as messages print it, e.g. {@code "NVIDIA"}. */
    public String displayName() {
        return displayName;
    }
}
