package dev.rlx.cpu.kernels;

import dev.rlx.ir.Node;
import dev.rlx.runtime.CompileException;

/** Gather and scatter-add with index tensors. */
public final class IndexKernels {
    private IndexKernels() {}

    public static Kernel gather(Node n, LowerContext ctx) {
        throw new CompileException("cpu: gather is not implemented yet (node " + n.describe() + ")");
    }

    public static Kernel scatterAdd(Node n, LowerContext ctx) {
        throw new CompileException("cpu: scatterAdd is not implemented yet (node " + n.describe() + ")");
    }
}
