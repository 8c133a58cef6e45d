package dev.rlx.cpu.kernels;

import dev.rlx.ir.Node;

/** Convolution, transposed convolution and pooling. */
public final class ConvKernels {
    private ConvKernels() {}

    /** See {@link ConvKernel}. */
    public static Kernel conv(Node n, LowerContext ctx) {
        return ConvKernel.conv(n, ctx);
    }

    /** See {@link ConvKernel}. */
    public static Kernel convTranspose(Node n, LowerContext ctx) {
        return ConvKernel.convTranspose(n, ctx);
    }

    /** See {@link PoolKernel}. */
    public static Kernel pool(Node n, LowerContext ctx) {
        return PoolKernel.of(n, ctx);
    }
}
