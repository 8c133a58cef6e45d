package dev.rlx.cpu.kernels;

import dev.rlx.ir.Node;
import dev.rlx.runtime.CompileException;

/** Convolution, transposed convolution and pooling. */
public final class ConvKernels {
    private ConvKernels() {}

    public static Kernel conv(Node n, LowerContext ctx) {
        throw new CompileException("cpu: conv is not implemented yet (node " + n.describe() + ")");
    }

    public static Kernel convTranspose(Node n, LowerContext ctx) {
        throw new CompileException("cpu: convTranspose is not implemented yet (node " + n.describe() + ")");
    }

    public static Kernel pool(Node n, LowerContext ctx) {
        throw new CompileException("cpu: pool is not implemented yet (node " + n.describe() + ")");
    }
}
