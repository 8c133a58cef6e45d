package dev.rlx.cuda;

/**
 * One piece of work of a compiled graph, in stream order: a kernel launch or a cuBLAS product. Kernels on one
 * stream run in order, so no barriers are needed between steps.
 */
sealed interface Step permits Step.Launch, Step.Gemm {
    /** The op it computes, for messages ({@code "node %7 matmul"}). */
    String what();

    /**
     * A launch of {@code kernel} with its argument block (operand addresses, integers), a grid of blocks of
     * {@code blockX x blockY} threads.
     */
    record Launch(KernelSource kernel, String what, long[] ptrs, int[] ints, int gridX, int gridY, int gridZ,
                  int blockX, int blockY) implements Step {}

    /**
     * A strided batched GEMM in cuBLAS's column-major terms ({@code C = op(A) op(B)}, each matrix at a fixed
     * element stride from the previous batch), of storage type {@code cudaType} accumulated in
     * {@code computeType}.
     */
    record Gemm(String what, int transA, int transB, int m, int n, int k, long a, int lda, long strideA, long b,
                int ldb, long strideB, long c, int ldc, long strideC, int batches, int cudaType, int computeType)
            implements Step {}
}
