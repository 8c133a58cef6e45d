package dev.rlx.cpu.kernels;

import dev.rlx.ir.Node;
import dev.rlx.runtime.CompileException;

/** Softmax, log-softmax and the layer, RMS and group normalisations. */
public final class NormKernels {
    private NormKernels() {}

    public static Kernel softmax(Node n, LowerContext ctx) {
        throw new CompileException("cpu: softmax is not implemented yet (node " + n.describe() + ")");
    }

    public static Kernel logSoftmax(Node n, LowerContext ctx) {
        throw new CompileException("cpu: logSoftmax is not implemented yet (node " + n.describe() + ")");
    }

    public static Kernel layerNorm(Node n, LowerContext ctx) {
        throw new CompileException("cpu: layerNorm is not implemented yet (node " + n.describe() + ")");
    }

    public static Kernel rmsNorm(Node n, LowerContext ctx) {
        throw new CompileException("cpu: rmsNorm is not implemented yet (node " + n.describe() + ")");
    }

    public static Kernel groupNorm(Node n, LowerContext ctx) {
        throw new CompileException("cpu: groupNorm is not implemented yet (node " + n.describe() + ")");
    }
}
