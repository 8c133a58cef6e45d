package dev.rlx.cuda;

import dev.rlx.ir.RlxException;

/**
 * A CUDA call failed, or CUDA cannot be used here (a library missing, no device, a kernel that does not compile).
 * The message names the call, the result's name ({@code CUDA_ERROR_NO_DEVICE}, {@code NVRTC_ERROR_COMPILATION},
 * {@code CUBLAS_STATUS_NOT_SUPPORTED}) and what was being done; {@link #call} and {@link #resultName} give them
 * to code.
 */
public final class CudaException extends RlxException {
    private final String call;
    private final int result;
    private final String resultName;

    public CudaException(String message) {
        this(message, null, 0, null, null);
    }

    public CudaException(String message, Throwable cause) {
        this(message, null, 0, null, cause);
    }

    public CudaException(String message, String call, int result, String resultName, Throwable cause) {
        super(message, cause);
        this.call = call;
        this.result = result;
        this.resultName = resultName;
    }

    /** The function that failed ({@code "cuMemAllocAsync"}), or null when the error is not a failed call. */
    public String call() {
        return call;
    }

    /** The numeric result the call returned ({@code CUresult}, {@code nvrtcResult}, {@code cublasStatus_t}), or 0. */
    public int result() {
        return result;
    }

    /** The result's name ({@code "CUDA_ERROR_NO_DEVICE"}), or null when the error is not a failed call. */
    public String resultName() {
        return resultName;
    }
}
