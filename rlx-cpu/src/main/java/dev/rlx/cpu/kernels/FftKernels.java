package dev.rlx.cpu.kernels;

import dev.rlx.ir.Node;
import dev.rlx.runtime.CompileException;

/** FFT kernels (not built yet: compiling an fft node fails). */
public final class FftKernels {
    private FftKernels() {}

    public static Kernel fft(Node n, LowerContext ctx) {
        throw new CompileException("cpu: " + n.describe() + " has no kernel yet");
    }
}
