package dev.rlx.cpu;

import dev.rlx.cpu.kernels.Kernel;
import dev.rlx.runtime.Tracer;

/** A kernel timed for the {@link Tracer}; only built when tracing is on. */
final class TracedKernel implements Kernel {
    private final Kernel kernel;
    private final Tracer tracer;
    private final int index;

    TracedKernel(Kernel kernel, Tracer tracer, int index) {
        this.kernel = kernel;
        this.tracer = tracer;
        this.index = index;
    }

    @Override
    public void run() {
        long t0 = System.nanoTime();
        kernel.run();
        tracer.record(index, t0);
    }
}
