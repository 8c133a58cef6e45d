package dev.rlx.cpu.kernels;

import dev.rlx.ir.Node;
import dev.rlx.runtime.CompileException;

/** If, While and Scan: run compiled subgraphs. */
public final class ControlFlowKernels {
    private ControlFlowKernels() {}

    public static Kernel ifElse(Node n, LowerContext ctx) {
        throw new CompileException("cpu: ifElse is not implemented yet (node " + n.describe() + ")");
    }

    public static Kernel whileLoop(Node n, LowerContext ctx) {
        throw new CompileException("cpu: whileLoop is not implemented yet (node " + n.describe() + ")");
    }

    public static Kernel scan(Node n, LowerContext ctx) {
        throw new CompileException("cpu: scan is not implemented yet (node " + n.describe() + ")");
    }
}
