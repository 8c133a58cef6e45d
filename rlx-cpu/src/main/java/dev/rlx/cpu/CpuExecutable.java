package dev.rlx.cpu;

import dev.rlx.cpu.kernels.Kernel;
import dev.rlx.cpu.kernels.Reseedable;
import dev.rlx.ir.Value;
import dev.rlx.runtime.RngOptions;
import dev.rlx.runtime.Tracer;
import dev.rlx.runtime.spi.CommandStream;
import dev.rlx.runtime.spi.Executable;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;

/**
 * A compiled CPU graph: the memory it owns, each value's bytes (in the arena, the constant pool or a bound
 * param buffer), and the kernel list {@link #run} walks on the calling thread (the stream is synchronous).
 */
final class CpuExecutable implements Executable {
    private final CpuMemory memory; // null for a body, whose memory the enclosing executable owns
    private final Map<Value, MemorySegment> slots;
    private final Kernel[] kernels;
    private final List<Reseedable> reseedables; // RNG kernels here and in bodies
    private final Tracer tracer; // null unless RLX_TRACE / RLX_TRACE_FILE

    CpuExecutable(CpuMemory memory, Map<Value, MemorySegment> slots, Kernel[] kernels, List<Reseedable> reseedables,
                  Tracer tracer) {
        this.memory = memory;
        this.slots = slots;
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
    public MemorySegment hostSlot(Value v) {
        MemorySegment s = slots.get(v);
        if (s == null) {
            throw new IllegalArgumentException("value " + v + " has no slot in this executable");
        }
        return s;
    }

    @Override
    public void write(Value v, MemorySegment src) {
        MemorySegment dst = hostSlot(v);
        MemorySegment.copy(src, 0, dst, 0, dst.byteSize());
    }

    @Override
    public void read(Value v, MemorySegment dst) {
        MemorySegment src = hostSlot(v);
        MemorySegment.copy(src, 0, dst, 0, src.byteSize());
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
