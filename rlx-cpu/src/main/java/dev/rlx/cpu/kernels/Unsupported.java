package dev.rlx.cpu.kernels;

import dev.rlx.ir.DType;
import dev.rlx.ir.Node;
import dev.rlx.runtime.CompileException;

/** Compile-time rejections for operand types a CPU kernel does not compute on. */
final class Unsupported {
    private Unsupported() {}

    /** Rejects complex operands: the numeric kernels compute on real floats (via double) and integers (via long). */
    static void requireReal(Node n, DType t) {
        if (t.isComplex()) {
            throw new CompileException("cpu: " + n.describe() + " has no kernel for " + t.label());
        }
    }
}
