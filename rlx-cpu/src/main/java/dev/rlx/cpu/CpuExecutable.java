package dev.rlx.cpu;

import dev.rlx.cpu.kernels.Kernel;
import dev.rlx.cpu.kernels.Reseedable;
import dev.rlx.ir.Value;
import dev.rlx.runtime.RngOptions;
import dev.rlx.runtime.Tracer;
import dev.rlx.runtime.spi.CommandStream;
import dev.rlx.runtime.spi.HostExecutable;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;

/**
 * A compiled CPU graph: the memory it owns, each value's bytes (in the arena, the constant pool or a bound
 * param buffer), and the kernel list {@link #run} walks on the calling thread (the stream is synchronous).
 */
final class CpuExecutable extends HostExecutable {
    private final CpuMemory memory; // null for a body, whose memory the enclosing executable owns
    private final Kernel[] kernels;
    private final List<Reseedable> reseedables; // RNG kernels here and in bodies
    private final Tracer tracer; // null unless RLX_TRACE / RLX_TRACE_FILE

    CpuExecutable(CpuMemory memory, Map<Value, MemorySegment> slots, Kernel[] kernels, List<Reseedable> reseedables,
                  Tracer tracer) {
        super(slots);
        this.memory = memory;
        this.kernels = kernels;
        this.reseedables = reseedables;
        this.tracer = tracer;
    }

    @Override
    public void setRng(RngOptions rng) {
        for (Reseedable r : reseedables) {
            r.setRng(rng);
        }
    }

    @Override
    public void run(CommandStream stream) {
        run();
    }

    /** Runs every kernel now, on this thread. */
    void run() {
        for (Kernel k : kernels) {
            k.run();
        }
    }

    @Override
    public int kernelCount() {
        return kernels.length;
    }

    @Override
    public long deviceBytes() {
        return memory == null ? 0 : memory.bytes();
    }

    @Override
    public void close() {
        if (tracer != null) {
            tracer.close();
        }
        if (memory != null) {
            memory.close();
        }
    }
}
