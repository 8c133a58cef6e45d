package dev.rlx.cpu.kernels;

import dev.rlx.ir.Node;

/** Factory for the random-number kernels ({@code RngNormal}, {@code RngUniform}); see {@link RngKernel}. */
public final class RngKernels {
    private RngKernels() {}

    public static Kernel of(Node n, LowerContext ctx) {
        return RngKernel.of(n, ctx);
    }
}
