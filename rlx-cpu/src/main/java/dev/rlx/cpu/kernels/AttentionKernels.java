package dev.rlx.cpu.kernels;

import dev.rlx.ir.Node;
import dev.rlx.runtime.CompileException;

/** Scaled dot-product attention and rotary position embedding. */
public final class AttentionKernels {
    private AttentionKernels() {}

    public static Kernel attention(Node n, LowerContext ctx) {
        throw new CompileException("cpu: attention is not implemented yet (node " + n.describe() + ")");
    }

    public static Kernel rope(Node n, LowerContext ctx) {
        throw new CompileException("cpu: rope is not implemented yet (node " + n.describe() + ")");
    }
}
