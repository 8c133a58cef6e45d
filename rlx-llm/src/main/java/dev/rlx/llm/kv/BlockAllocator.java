package dev.rlx.llm.kv;

import java.util.Locale;

/**
 * Hands out block ids {@code [0, capacity)} and counts references to them. A block is free (count 0) or
 * allocated (count >= 1); {@link #allocate()} returns a free block with count 1, {@link #retain} adds a
 * sharer, {@link #release} drops one and frees the block when the last goes. Releasing a free block or naming
 * an id out of range throws instead of corrupting the free list.
 *
 * <p>Every operation is O(1) and allocation-free: the free blocks are a stack, so the most recently freed
 * block (the one most likely still in cache) is reused first; a fresh allocator hands out ids in ascending
 * order. Not thread-safe: a {@link PagedKvCache} calls it from its single writer thread.
 */
public final class BlockAllocator {
    private final int[] refs; // (capacity) reference count per block, 0 = free
    private final int[] freeStack; // (capacity) free ids, top at freeTop - 1
    private int freeTop;

    /** An allocator with {@code capacity} free blocks. */
    public BlockAllocator(int capacity) {
        if (capacity < 1) {
            throw new KvCacheException(KvCacheException.Reason.BAD_ARGUMENT,
                    "[BlockAllocator] capacity must be >= 1 but is " + capacity);
        }
        refs = new int[capacity];
        freeStack = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            freeStack[i] = capacity - 1 - i; // block 0 on top
        }
        freeTop = capacity;
    }

    public int capacity() {
        return refs.length;
    }

    public int freeCount() {
        return freeTop;
    }

    public int usedCount() {
        return refs.length - freeTop;
    }

    /**
     * Takes a free block and gives it reference count 1.
     *
     * @throws KvCacheException ({@link KvCacheException.Reason#OUT_OF_BLOCKS}) when every block is in use
     */
    public int allocate() {
        if (freeTop == 0) {
            throw new KvCacheException(KvCacheException.Reason.OUT_OF_BLOCKS,
                    "[BlockAllocator] all " + refs.length + " blocks are in use");
        }
        int b = freeStack[--freeTop];
        refs[b] = 1;
        return b;
    }

    /**
     * Adds a reference to an allocated block (a sequence forked from one that holds it).
     *
     * @throws KvCacheException for an id out of range ({@code BLOCK_OUT_OF_RANGE}) or a free block
     *     ({@code BAD_STATE})
     */
    public void retain(int block) {
        check(block);
        if (refs[block] == 0) {
            throw new KvCacheException(KvCacheException.Reason.BAD_STATE,
                    "[BlockAllocator] block " + block + " is free; only an allocated block can be shared");
        }
        refs[block]++;
    }

    /**
     * Drops one reference; frees the block when it was the last.
     *
     * @return whether the block is now free
     * @throws KvCacheException for an id out of range ({@code BLOCK_OUT_OF_RANGE}) or a block that is already
     *     free ({@code DOUBLE_FREE})
     */
    public boolean release(int block) {
        check(block);
        if (refs[block] == 0) {
            throw new KvCacheException(KvCacheException.Reason.DOUBLE_FREE,
                    "[BlockAllocator] block " + block + " released but it is already free (double free)");
        }
        if (--refs[block] > 0) {
            return false;
        }
        freeStack[freeTop++] = block;
        return true;
    }

    /** References to {@code block}; 0 when free. */
    public int refCount(int block) {
        check(block);
        return refs[block];
    }

    private void check(int block) {
        if (block < 0 || block >= refs.length) {
            throw new KvCacheException(KvCacheException.Reason.BLOCK_OUT_OF_RANGE, String.format(Locale.ROOT,
                    "[BlockAllocator] block %d is out of range [0, %d)", block, refs.length));
        }
    }

    /** Checks that the free stack holds exactly the blocks with count 0, once each; for tests. */
    void audit() {
        boolean[] seen = new boolean[refs.length];
        for (int i = 0; i < freeTop; i++) {
            int b = freeStack[i];
            if (seen[b] || refs[b] != 0) {
                throw new IllegalStateException("free stack entry " + i + " (block " + b + ") is "
                        + (seen[b] ? "listed twice" : "in use with count " + refs[b]));
            }
            seen[b] = true;
        }
        for (int b = 0; b < refs.length; b++) {
            if (refs[b] < 0 || (refs[b] == 0) != seen[b]) {
                throw new IllegalStateException("block " + b + " has count " + refs[b] + " but is "
                        + (seen[b] ? "" : "not ") + "on the free stack");
            }
        }
    }
}
