package dev.rlx.runtime.spi;

import dev.rlx.runtime.Rlx;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongFunction;

/**
 * A weight's copies in a backend's own layouts (the CPU's pre-packed matmul operands), held once per weight and
 * shared by every executable that reads the weight: a model compiled at several shapes, or once per thread or
 * session against one weight set, packs each weight once, not once per graph. A copy is refilled on its first use
 * after the weight was written ({@link WriteCount}). The copies of a weight set draw on one budget
 * ({@link #budgetBytes()}); past it, kernels work from the weight itself. Thread-safe.
 */
public final class WeightCopies {
    private final WriteCount writes;
    private final AtomicLong budget;
    private final boolean ownsMemory;
    private final LongFunction<MemorySegment> allocate; // null when the memory is our own arena's
    private Arena arena; // made on the first copy (most weights never get one; closing a shared arena is a handshake)
    private final Map<String, Copy> copies = new HashMap<>();
    private boolean freed;

    /** Copies in memory of their own, freed by {@link #free}, taking their bytes from {@code budget}. */
    public WeightCopies(WriteCount writes, AtomicLong budget) {
        this.writes = writes;
        this.budget = budget;
        this.ownsMemory = true;
        this.allocate = null;
    }

    /** Copies in memory from {@code allocate} (zeroed, 64-byte aligned), which its owner frees. */
    public WeightCopies(WriteCount writes, AtomicLong budget, LongFunction<MemorySegment> allocate) {
        this.writes = writes;
        this.budget = budget;
        this.ownsMemory = false;
        this.allocate = allocate;
    }

    /**
     * What one weight set's (or one graph's constants') copies may take together: {@code RLX_PREPACK_MB} MiB,
     * default 256; 0 turns the copies off. A pre-packed matmul weight is a second copy of it, so a model whose
     * f32 weights exceed the budget has only its first ones packed.
     */
    public static long budgetBytes() {
        return Math.max(0, Rlx.intSetting("RLX_PREPACK_MB", 256)) * (1L << 20);
    }

    /** How often the weight has been written. */
    public WriteCount writes() {
        return writes;
    }

    /**
     * The copy of the weight in {@code layout}, made (zeroed, not yet filled) on the first ask; null when its
     * {@code bytes} would exceed the budget. {@code layout} names everything the copy's contents depend on
     * besides the weight's bytes (the packing, the sizes, the view of the weight it packs), so kernels that ask
     * for the same layout share one copy.
     */
    public synchronized Copy copy(String layout, long bytes) {
        Copy c = copies.get(layout);
        if (c != null) {
            if (c.memory.byteSize() != bytes) {
                throw new IllegalStateException("copy '" + layout + "' is " + c.memory.byteSize() + " bytes, not "
                        + bytes + ": a layout key must fix the size"); // a backend bug
            }
            return c;
        }
        if (freed || bytes <= 0 || !take(bytes)) {
            return null;
        }
        c = new Copy(allocateCopy(bytes), writes);
        copies.put(layout, c);
        return c;
    }

    private MemorySegment allocateCopy(long bytes) {
        if (!ownsMemory) {
            return allocate.apply(bytes);
        }
        if (arena == null) {
            arena = Arena.ofShared();
        }
        return arena.allocate(bytes, 64);
    }

    private boolean take(long bytes) {
        long left = budget.get();
        while (left >= bytes) {
            if (budget.compareAndSet(left, left - bytes)) {
                return true;
            }
            left = budget.get();
        }
        return false;
    }

    /** Bytes the copies hold. */
    public synchronized long bytes() {
        long n = 0;
        for (Copy c : copies.values()) {
            n += c.memory.byteSize();
        }
        return n;
    }

    /** Frees the copies' memory (the weight's owner does, once no executable reads the weight). */
    public synchronized void free() {
        if (freed) {
            return;
        }
        freed = true;
        budget.addAndGet(bytes());
        copies.clear();
        if (arena != null) {
            arena.close();
            arena = null;
        }
    }

    /** One copy: its memory, and the write count it was last filled at. */
    public static final class Copy {
        private final MemorySegment memory;
        private final WriteCount writes;
        private volatile long filledAt = -1;

        private Copy(MemorySegment memory, WriteCount writes) {
            this.memory = memory;
            this.writes = writes;
        }

        /** The copy's memory (fill it through {@link #refresh}). */
        public MemorySegment memory() {
            return memory;
        }

        /**
         * Fills the copy with {@code fill} if the weight was written since the last fill (or it never was); a
         * kernel calls this at the start of each run, and it costs two volatile reads when the copy is current.
         * Kernels of several graphs may call it at once: one fills, the others wait for it.
         */
        public void refresh(Consumer<MemorySegment> fill) {
            if (filledAt == writes.get()) {
                return;
            }
            synchronized (this) {
                long at = writes.get(); // read first: a write racing the fill is seen at the next run
                if (filledAt != at) {
                    fill.accept(memory);
                    filledAt = at;
                }
            }
        }
    }
}
