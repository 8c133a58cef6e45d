package dev.rlx.cuda.bindings;

import java.util.Map;

/**
 * Names of the {@code CUresult} codes (cuda.h) a caller may meet, so a message names the error even where the
 * driver cannot ({@code cuGetErrorName} needs a loaded driver).
 */
public final class CuResults {
    private CuResults() {}

    public static final int CUDA_SUCCESS = 0;
    public static final int CUDA_ERROR_NOT_INITIALIZED = 3;
    public static final int CUDA_ERROR_STUB_LIBRARY = 34;
    public static final int CUDA_ERROR_NO_DEVICE = 100;

    private static final Map<Integer, String> NAMES = Map.ofEntries(
            Map.entry(0, "CUDA_SUCCESS"),
            Map.entry(1, "CUDA_ERROR_INVALID_VALUE"),
            Map.entry(2, "CUDA_ERROR_OUT_OF_MEMORY"),
            Map.entry(3, "CUDA_ERROR_NOT_INITIALIZED"),
            Map.entry(4, "CUDA_ERROR_DEINITIALIZED"),
            Map.entry(34, "CUDA_ERROR_STUB_LIBRARY"),
            Map.entry(35, "CUDA_ERROR_INSUFFICIENT_DRIVER"),
            Map.entry(46, "CUDA_ERROR_DEVICES_UNAVAILABLE"),
            Map.entry(100, "CUDA_ERROR_NO_DEVICE"),
            Map.entry(101, "CUDA_ERROR_INVALID_DEVICE"),
            Map.entry(200, "CUDA_ERROR_INVALID_IMAGE"),
            Map.entry(201, "CUDA_ERROR_INVALID_CONTEXT"),
            Map.entry(209, "CUDA_ERROR_NO_BINARY_FOR_GPU"),
            Map.entry(218, "CUDA_ERROR_INVALID_PTX"),
            Map.entry(222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"),
            Map.entry(400, "CUDA_ERROR_INVALID_HANDLE"),
            Map.entry(500, "CUDA_ERROR_NOT_FOUND"),
            Map.entry(600, "CUDA_ERROR_NOT_READY"),
            Map.entry(700, "CUDA_ERROR_ILLEGAL_ADDRESS"),
            Map.entry(701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"),
            Map.entry(702, "CUDA_ERROR_LAUNCH_TIMEOUT"),
            Map.entry(719, "CUDA_ERROR_LAUNCH_FAILED"),
            Map.entry(801, "CUDA_ERROR_NOT_SUPPORTED"),
            Map.entry(900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"),
            Map.entry(901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"),
            Map.entry(999, "CUDA_ERROR_UNKNOWN"));

    /** The name of {@code result}, or {@code "CUresult <n>"} for a code this table lacks. */
    public static String name(int result) {
        return NAMES.getOrDefault(result, "CUresult " + result);
    }
}
