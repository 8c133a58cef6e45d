package dev.rlx.cuda;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rlx.cuda.bindings.Cublas;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The backend's cuBLAS handle, with a workspace of its own (so a GEMM captured in a CUDA graph allocates
 * nothing). Executables of one backend share it; {@link #gemm} sets the stream and enqueues under a lock, so two
 * threads never interleave on it.
 */
final class CublasHandle {
    /** Workspace bytes: what cuBLAS asks for on Hopper. */
    static final long WORKSPACE = 32L << 20;

    private final CudaContext ctx;
    private final Cublas cublas;
    private final long handle;
    private final CudaBuffer workspace;

    private CublasHandle(CudaContext ctx, Cublas cublas, long handle, CudaBuffer workspace) {
        this.ctx = ctx;
        this.cublas = cublas;
        this.handle = handle;
        this.workspace = workspace;
    }

    /** A handle on {@code ctx}, or null where cuBLAS did not load (the tiled kernel runs products then). */
    static CublasHandle open(CudaContext ctx, CudaMemory memory) {
        if (ctx.cublas == null) {
            return null;
        }
        ctx.bind();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment h = a.allocate(JAVA_LONG);
            Cublas.check(ctx.cublas.cublasCreate(h), "cublasCreate_v2", "opening cuBLAS on " + ctx.info.name());
            long handle = h.get(JAVA_LONG, 0);
            CudaBuffer ws = null;
            if (ctx.cublas.hasSetWorkspace()) {
                ws = (CudaBuffer) memory.allocate(WORKSPACE);
                Cublas.check(ctx.cublas.cublasSetWorkspace(handle, ws.address, WORKSPACE), "cublasSetWorkspace_v2",
                        "giving cuBLAS its workspace");
            }
            return new CublasHandle(ctx, ctx.cublas, handle, ws);
        }
    }

    /** Enqueues {@code g} on {@code stream}. */
    synchronized void gemm(Step.Gemm g, MemorySegment alpha, MemorySegment beta, long stream) {
        int r = cublas.cublasSetStream(handle, stream);
        if (r != 0) {
            Cublas.check(r, "cublasSetStream_v2", "enqueueing " + g.what());
        }
        r = cublas.gemmStridedBatchedEx(handle, g.transA(), g.transB(), g.m(), g.n(), g.k(), alpha, g.a(),
                g.cudaType(), g.lda(), g.strideA(), g.b(), g.cudaType(), g.ldb(), g.strideB(), beta, g.c(),
                g.cudaType(), g.ldc(), g.strideC(), g.batches(), g.computeType(), Cublas.CUBLAS_GEMM_DEFAULT);
        if (r != 0) {
            Cublas.check(r, "cublasGemmStridedBatchedEx", "enqueueing " + g.what() + " (" + g.m() + "x" + g.n()
                    + "x" + g.k() + ")");
        }
    }

    /** Destroys the handle and frees its workspace. */
    void close(CudaMemory memory) {
        ctx.bind();
        cublas.cublasDestroy(handle);
        if (workspace != null) {
            memory.free(workspace);
        }
    }
}
