package dev.rlx.cuda.bindings;

/**
 * The NVIDIA libraries the CUDA backend binds: each one's file base name ({@code lib<base>.so[.N]}), the variable
 * that names its file explicitly, and the name the dynamic loader knows it by.
 */
public enum CudaLibrary {
    /** The driver API; comes with the NVIDIA driver, never with a toolkit (the toolkit's is a stub). */
    DRIVER("cuda", "RLX_CUDA_DRIVER_LIBRARY", "libcuda.so.1"),
    /** The run-time compiler of the kernels. */
    NVRTC("nvrtc", "RLX_CUDA_NVRTC_LIBRARY", "libnvrtc.so"),
    /** Matrix products. */
    CUBLAS("cublas", "RLX_CUDA_CUBLAS_LIBRARY", "libcublas.so"),
    /** Matrix products with fused epilogues. */
    CUBLAS_LT("cublasLt", "RLX_CUDA_CUBLASLT_LIBRARY", "libcublasLt.so");

    private final String base;
    private final String variable;
    private final String loaderName;

    CudaLibrary(String base, String variable, String loaderName) {
        this.base = base;
        this.variable = variable;
        this.loaderName = loaderName;
    }

    /** {@code "nvrtc"} for {@code libnvrtc.so.13}. */
    public String base() {
        return base;
    }

    /** The environment variable that names the file, e.g. {@code RLX_CUDA_NVRTC_LIBRARY}. */
    public String variable() {
        return variable;
    }

    /** The name handed to the dynamic loader when no folder has the file. */
    public String loaderName() {
        return loaderName;
    }
}
