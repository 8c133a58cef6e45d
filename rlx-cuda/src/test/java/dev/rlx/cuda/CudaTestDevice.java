package dev.rlx.cuda;

/** What the CUDA tests say when they skip. */
final class CudaTestDevice {
    private CudaTestDevice() {}

    /** The reason, from the probe (no driver, no device, no NVRTC). */
    static String missing() {
        return "no usable CUDA device: " + CudaBackend.probe().reason()
                + " (the GPU check rlx-cuda/gpu-check/run.sh runs these on a GPU machine)";
    }
}
