package dev.rlx.cuda.bindings;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rlx.cuda.CudaException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * cuBLAS ({@code libcublas.so}) bound with FFM: a handle per backend, the stream it enqueues on, and the strided
 * batched GEMM of any storage type with a chosen compute type ({@code cublasGemmStridedBatchedEx}). Column-major,
 * as cuBLAS is; callers turn row-major products around.
 */
public final class Cublas {
    public static final int CUBLAS_OP_N = 0;
    public static final int CUBLAS_OP_T = 1;
    /** {@code cudaDataType} values. */
    public static final int CUDA_R_32F = 0;
    public static final int CUDA_R_64F = 1;
    public static final int CUDA_R_16F = 2;
    public static final int CUDA_R_16BF = 14;
    /** {@code cublasComputeType_t} values: plain f32 (no TF32) and f64. */
    public static final int CUBLAS_COMPUTE_32F = 68;
    public static final int CUBLAS_COMPUTE_64F = 70;
    public static final int CUBLAS_GEMM_DEFAULT = -1;

    private final NativeLibrary lib;
    private final MethodHandle create;
    private final MethodHandle destroy;
    private final MethodHandle setStream;
    private final MethodHandle setWorkspace;
    private final MethodHandle gemmStridedBatchedEx;

    private Cublas(NativeLibrary lib) {
        this.lib = lib;
        create = lib.function("cublasCreate_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        destroy = lib.function("cublasDestroy_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
        setStream = lib.function("cublasSetStream_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
        setWorkspace = lib.optionalFunction("cublasSetWorkspace_v2",
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG));
        gemmStridedBatchedEx = lib.function("cublasGemmStridedBatchedEx", FunctionDescriptor.of(JAVA_INT,
                JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS,
                JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG,
                JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS,
                JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT));
    }

    /**
     * Binds cuBLAS at {@code located}.
     *
     * @throws CudaException naming the file when it does not load or lacks a function RLX needs
     */
    public static Cublas load(LibraryLocator.Located located) {
        return new Cublas(NativeLibrary.open(located.target()));
    }

    public NativeLibrary library() {
        return lib;
    }

    /** Throws unless {@code status} is {@code CUBLAS_STATUS_SUCCESS}. */
    public static void check(int status, String call, String what) {
        if (status != 0) {
            String name = statusName(status);
            throw new CudaException("cuBLAS: " + call + " failed with " + name + " while " + what, call, status, name,
                    null);
        }
    }

    static String statusName(int s) {
        return switch (s) {
            case 1 -> "CUBLAS_STATUS_NOT_INITIALIZED";
            case 3 -> "CUBLAS_STATUS_ALLOC_FAILED";
            case 7 -> "CUBLAS_STATUS_INVALID_VALUE";
            case 8 -> "CUBLAS_STATUS_ARCH_MISMATCH";
            case 11 -> "CUBLAS_STATUS_MAPPING_ERROR";
            case 13 -> "CUBLAS_STATUS_EXECUTION_FAILED";
            case 14 -> "CUBLAS_STATUS_INTERNAL_ERROR";
            case 15 -> "CUBLAS_STATUS_NOT_SUPPORTED";
            case 16 -> "CUBLAS_STATUS_LICENSE_ERROR";
            default -> "cublasStatus_t " + s;
        };
    }

    private static CudaException broken(String call, Throwable e) {
        return new CudaException("cuBLAS: calling " + call + " failed: " + e, call, 0, null, e);
    }

    public int cublasCreate(MemorySegment handle) {
        try {
            return (int) create.invokeExact(handle);
        } catch (Throwable e) {
            throw broken("cublasCreate_v2", e);
        }
    }

    public int cublasDestroy(long handle) {
        try {
            return (int) destroy.invokeExact(handle);
        } catch (Throwable e) {
            throw broken("cublasDestroy_v2", e);
        }
    }

    public int cublasSetStream(long handle, long stream) {
        try {
            return (int) setStream.invokeExact(handle, stream);
        } catch (Throwable e) {
            throw broken("cublasSetStream_v2", e);
        }
    }

    /** Whether this cuBLAS takes a caller's workspace (so a captured graph allocates nothing; CUDA 11.4+). */
    public boolean hasSetWorkspace() {
        return setWorkspace != null;
    }

    public int cublasSetWorkspace(long handle, long workspace, long bytes) {
        try {
            return (int) setWorkspace.invokeExact(handle, workspace, bytes);
        } catch (Throwable e) {
            throw broken("cublasSetWorkspace_v2", e);
        }
    }

    /** {@code cublasGemmStridedBatchedEx}; {@code alpha} and {@code beta} are host scalars of the compute type. */
    public int gemmStridedBatchedEx(long handle, int transA, int transB, int m, int n, int k, MemorySegment alpha,
                                    long a, int aType, int lda, long strideA, long b, int bType, int ldb, long strideB,
                                    MemorySegment beta, long c, int cType, int ldc, long strideC, int batches,
                                    int computeType, int algo) {
        try {
            return (int) gemmStridedBatchedEx.invokeExact(handle, transA, transB, m, n, k, alpha, a, aType, lda,
                    strideA, b, bType, ldb, strideB, beta, c, cType, ldc, strideC, batches, computeType, algo);
        } catch (Throwable e) {
            throw broken("cublasGemmStridedBatchedEx", e);
        }
    }
}
