package dev.rlx.cpu.kernels;

import dev.rlx.ir.Node;
import dev.rlx.runtime.CompileException;

/** Reductions over axes, arg-max/min, prefix sums and top-k. */
public final class ReduceKernels {
    private ReduceKernels() {}

    public static Kernel reduce(Node n, LowerContext ctx) {
        throw new CompileException("cpu: reduce is not implemented yet (node " + n.describe() + ")");
    }

    public static Kernel argReduce(Node n, LowerContext ctx) {
        throw new CompileException("cpu: argReduce is not implemented yet (node " + n.describe() + ")");
    }

    public static Kernel cumsum(Node n, LowerContext ctx) {
        throw new CompileException("cpu: cumsum is not implemented yet (node " + n.describe() + ")");
    }

    public static Kernel topK(Node n, LowerContext ctx) {
        throw new CompileException("cpu: topK is not implemented yet (node " + n.describe() + ")");
    }
}
