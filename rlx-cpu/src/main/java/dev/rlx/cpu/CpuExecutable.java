package dev.rlx.cpu;

import dev.rlx.cpu.kernels.Kernel;
import dev.rlx.cpu.kernels.Reseedable;
import dev.rlx.ir.Value;
import dev.rlx.runtime.RngOptions;
import dev.rlx.runtime.Tracer;
import dev.rlx.runtime.spi.Executable;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;

/** A compiled CPU graph: the arena, each value's slice of it, and the kernel list {@link #run()} walks. */
final class CpuExecutable implements Executable {
    private final Arena arena;
    private final long arenaBytes;
    private final Map<Value, MemorySegment> slots;
    private final Kernel[] kernels;
    private final List<Reseedable> reseedables; // RNG kernels here and in subgraphs
    private final Tracer tracer; // null unless RLX_TRACE / RLX_TRACE_FILE

    CpuExecutable(Arena arena, long arenaBytes, Map<Value, MemorySegment> slots, Kernel[] kernels,
                  List<Reseedable> reseedables, Tracer tracer) {
        this.arena = arena;
        this.arenaBytes = arenaBytes;
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
    public void run() {
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
    public long arenaBytes() {
        return arenaBytes;
    }

    @Override
    public void close() {
        if (tracer != null) {
            tracer.close();
        }
        arena.close();
    }
}
