package dev.rlx.llm.kv;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The bytes behind block ids: one RAM pool per layer and, with a spill file, one file-backed pool per layer.
 * A block id is logical; {@link #place} gives an allocated block a physical slot and {@link #remove} takes it
 * back. RAM slots are preferred. When none is free, the block that has been in RAM longest (the oldest
 * history) moves to a free file slot, its bytes copied once for every layer, and the new block takes its RAM
 * slot: the block being appended to is always in RAM, and the file receives whole blocks, each written once.
 *
 * <p>Block layout in a layer's pool: keys then values, each {@code [kvHeads][tokensPerBlock][headRowBytes]}, so
 * one head's rows for consecutive tokens are contiguous (the attention kernel decodes them in one call).
 *
 * <p>Costs: {@link #place} is O(1) plus at most one block copy per layer; {@link #remove}, {@link #segment} and
 * {@link #offset} are O(1). Nothing allocates after construction.
 */
final class KvPools implements AutoCloseable {
    private static final int UNPLACED = Integer.MIN_VALUE;

    private final Arena arena = Arena.ofShared();
    private final int layers;
    private final long[] blockBytes; // (layers) bytes of one block per layer
    private final MemorySegment[] ram; // (layers) ramSlots * blockBytes[l]
    private final MemorySegment[] file; // (layers) fileSlots * blockBytes[l], slices of the mapping
    private final MemorySegment[] ramView; // (layers) read-only ram[l], exactly ramSlots * blockBytes[l]
    private final MemorySegment[] fileView; // (layers) read-only file[l]; empty without spill
    private final SpillFile spill; // null without spill
    private final int[] slotOf; // (numBlocks) RAM slot s >= 0, file slot f as -(f + 1), or UNPLACED
    private final int[] ramFree; // (ramSlots) stack of free RAM slots
    private int ramFreeTop;
    private final int[] fileFree; // (fileSlots) stack of free file slots
    private int fileFreeTop;
    // RAM slots in order of placement (oldest first), a doubly linked list through slot indices.
    private final int[] ramBlock; // (ramSlots) block in each RAM slot, or -1
    private final int[] older; // (ramSlots) previous slot in placement order, or -1
    private final int[] newer; // (ramSlots) next slot in placement order, or -1
    private int oldest = -1;
    private int newest = -1;
    private long demotions;

    KvPools(KvCacheConfig config) {
        layers = config.layers();
        int ramSlots = config.ramBlocks();
        int fileSlots = config.fileBlocks();
        blockBytes = new long[layers];
        ram = new MemorySegment[layers];
        file = new MemorySegment[layers];
        ramView = new MemorySegment[layers];
        fileView = new MemorySegment[layers];
        try {
            spill = config.spill() == null ? null : SpillFile.open(config, arena);
            long fileAt = 0;
            for (int l = 0; l < layers; l++) {
                blockBytes[l] = config.blockBytes(l);
                ram[l] = arena.allocate(Math.max(1, ramSlots * blockBytes[l]), 64);
                long fileBytes = fileSlots * blockBytes[l];
                file[l] = spill == null ? null : spill.data().asSlice(fileAt, fileBytes);
                fileAt += fileBytes;
                ramView[l] = ram[l].asSlice(0, ramSlots * blockBytes[l]).asReadOnly();
                fileView[l] = file[l] == null ? MemorySegment.NULL : file[l].asReadOnly(); // native: kernels read it
            }
        } catch (RuntimeException | OutOfMemoryError e) {
            arena.close();
            throw e;
        }
        slotOf = new int[config.numBlocks()];
        Arrays.fill(slotOf, UNPLACED);
        ramFree = stack(ramSlots);
        ramFreeTop = ramSlots;
        fileFree = stack(fileSlots);
        fileFreeTop = fileSlots;
        ramBlock = new int[ramSlots];
        older = new int[ramSlots];
        newer = new int[ramSlots];
        Arrays.fill(ramBlock, -1);
    }

    /** Gives a newly allocated block a slot, in RAM if need be by moving the oldest RAM block to the file. */
    void place(int block) {
        assert slotOf[block] == UNPLACED : "block " + block + " placed twice";
        int s;
        if (ramFreeTop > 0) {
            s = ramFree[--ramFreeTop];
        } else if (ramBlock.length > 0) {
            s = oldest;
            int victim = ramBlock[s];
            int f = fileFree[--fileFreeTop]; // exists: live blocks never exceed ramSlots + fileSlots
            for (int l = 0; l < layers; l++) {
                MemorySegment.copy(ram[l], s * blockBytes[l], file[l], f * blockBytes[l], blockBytes[l]);
            }
            slotOf[victim] = -(f + 1);
            unlink(s);
            demotions++;
        } else {
            slotOf[block] = -(fileFree[--fileFreeTop] + 1); // no RAM at all: straight to the file
            return;
        }
        slotOf[block] = s;
        ramBlock[s] = block;
        linkNewest(s);
    }

    /** Returns a freed block's slot. */
    void remove(int block) {
        int s = slotOf[block];
        assert s != UNPLACED : "block " + block + " removed but never placed";
        if (s >= 0) {
            unlink(s);
            ramBlock[s] = -1;
            ramFree[ramFreeTop++] = s;
        } else {
            fileFree[fileFreeTop++] = -s - 1;
        }
        slotOf[block] = UNPLACED;
    }

    /** The pool segment holding {@code block} in {@code layer}. */
    MemorySegment segment(int layer, int block) {
        return slotOf[block] >= 0 ? ram[layer] : file[layer];
    }

    /** Byte offset of {@code block} within {@link #segment}. */
    long offset(int layer, int block) {
        int s = slotOf[block];
        return (s >= 0 ? s : -s - 1) * blockBytes[layer];
    }

    /** A read-only view of {@code layer}'s RAM slots, {@code ramSlots x blockBytes}. */
    MemorySegment ramView(int layer) {
        return ramView[layer];
    }

    /** A read-only view of {@code layer}'s file slots, {@code fileSlots x blockBytes}; empty without spill. */
    MemorySegment fileView(int layer) {
        return fileView[layer];
    }

    /** {@code block}'s slot: a RAM slot {@code s >= 0}, or file slot {@code f} as {@code -(f + 1)}. */
    int slot(int block) {
        assert slotOf[block] != UNPLACED : "block " + block + " has no slot";
        return slotOf[block];
    }

    /** Copies every layer's bytes of block {@code from} over block {@code to} (copy-on-write). */
    void copy(int from, int to) {
        for (int l = 0; l < layers; l++) {
            MemorySegment.copy(segment(l, from), offset(l, from), segment(l, to), offset(l, to), blockBytes[l]);
        }
    }

    boolean inRam(int block) {
        return slotOf[block] >= 0;
    }

    boolean placed(int block) {
        return slotOf[block] != UNPLACED;
    }

    /** Blocks moved from RAM to the spill file so far. */
    long demotions() {
        return demotions;
    }

    SpillFile spill() {
        return spill;
    }

    @Override
    public void close() {
        try {
            arena.close(); // frees the RAM pools and unmaps the file
        } finally {
            if (spill != null) {
                spill.close();
            }
        }
    }

    private void linkNewest(int s) {
        older[s] = newest;
        newer[s] = -1;
        if (newest >= 0) {
            newer[newest] = s;
        } else {
            oldest = s;
        }
        newest = s;
    }

    private void unlink(int s) {
        if (older[s] >= 0) {
            newer[older[s]] = newer[s];
        } else {
            oldest = newer[s];
        }
        if (newer[s] >= 0) {
            older[newer[s]] = older[s];
        } else {
            newest = older[s];
        }
    }

    private static int[] stack(int n) {
        int[] s = new int[n];
        for (int i = 0; i < n; i++) {
            s[i] = n - 1 - i;
        }
        return s;
    }
}
