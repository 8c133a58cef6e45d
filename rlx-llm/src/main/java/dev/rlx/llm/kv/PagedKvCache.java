package dev.rlx.llm.kv;

import dev.rlx.ir.limits.Limits;
import dev.rlx.ir.quant.BlockFormat;
import dev.rlx.llm.kv.KvCacheException.Reason;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A paged key/value cache: token K/V rows of many sequences live in fixed-size blocks taken from one pool,
 * and each sequence maps its tokens to blocks through a block table, so memory is committed a block at a time
 * as sequences grow and returned the moment one finishes.
 *
 * <p>Use: {@link #newSequence} a sequence, {@link #append} room for new tokens, then per layer {@link #write}
 * their keys and values (quantised on the way in when the layer's {@link KvStorage} says so) and attend over
 * them with {@link PagedAttention}; {@link #read} decodes them back. {@link #fork} makes a child sequence that
 * shares every block of its parent (a system prompt, beam search, parallel sampling); the shared last block is
 * copied by whichever side appends to it first (copy-on-write), and history written before the fork is
 * read-only. {@link #free} returns a sequence's blocks.
 *
 * <p>K/V arrays are row-major {@code [tokens, kvHeads, headDim]}. Appends, writes and reads are O(tokens x
 * kvHeads x headDim) and allocate nothing except when a block table outgrows its array (doubling, so
 * amortised O(1)); fork and free are O(blocks). A failed call changes nothing.
 *
 * <p>Threading: one thread at a time may change the cache; {@link PagedAttention} may read it from many
 * threads while nobody changes it. {@link #close()} releases the pools (and unmaps the spill file).
 */
public final class PagedKvCache implements AutoCloseable {
    private final KvCacheConfig config;
    private final int tpb;
    private final int kvHeads;
    private final int headDim;
    private final int tokenValues; // kvHeads * headDim: floats per token in a K or V array
    private final BlockFormat[] formats; // (layers)
    private final long[] headRowBytes; // (layers)
    private final long[] keysBytes; // (layers) bytes of the key half of a block: kvHeads * tpb * headRowBytes
    private final BlockAllocator allocator;
    private final KvPools pools;
    private final Map<Long, KvSequence> live = new HashMap<>();
    private boolean closed;

    /**
     * Allocates the pools (and creates or opens the spill file) for {@code config}, within
     * {@link Limits#defaults()}.
     *
     * @throws KvCacheException ({@code SPILL_*}) when the spill file is missing, foreign, truncated or locked
     * @throws dev.rlx.ir.limits.LimitExceededException when the pools would take more than
     *     {@link Limits#kvCacheBytes()}
     */
    public PagedKvCache(KvCacheConfig config) {
        this(config, Limits.defaults());
    }

    /**
     * Allocates the pools for {@code config} after checking that its RAM (the RAM pools and the per-block
     * bookkeeping; spilled blocks are in the file) is within {@code limits.kvCacheBytes()}, before allocating.
     */
    public PagedKvCache(KvCacheConfig config, Limits limits) {
        limits.check(Limits.Kind.KV_CACHE_BYTES, String.format(Locale.ROOT,
                "a KV cache of %d blocks (%d in RAM) of %d tokens x %d kv heads x %d values over %d layers",
                config.numBlocks(), config.ramBlocks(), config.tokensPerBlock(), config.kvHeads(), config.headDim(),
                config.layers()), ramBytes(config));
        this.config = config;
        this.tpb = config.tokensPerBlock();
        this.kvHeads = config.kvHeads();
        this.headDim = config.headDim();
        this.tokenValues = kvHeads * headDim;
        int layers = config.layers();
        formats = new BlockFormat[layers];
        headRowBytes = new long[layers];
        keysBytes = new long[layers];
        for (int l = 0; l < layers; l++) {
            formats[l] = config.storage(l).format();
            headRowBytes[l] = config.headRowBytes(l);
            keysBytes[l] = kvHeads * tpb * headRowBytes[l];
        }
        allocator = new BlockAllocator(config.numBlocks());
        pools = new KvPools(config);
    }

    /** RAM the cache takes: its RAM pools and about 32 bytes of bookkeeping per block; -1 when that overflows. */
    static long ramBytes(KvCacheConfig config) {
        try {
            return Math.addExact(Math.multiplyExact((long) config.ramBlocks(), config.blockBytesAllLayers()),
                    32L * config.numBlocks());
        } catch (ArithmeticException e) {
            return -1;
        }
    }

    public KvCacheConfig config() {
        return config;
    }

    // ---------------------------------------------------------------- sequences

    /**
     * Starts an empty sequence.
     *
     * @throws KvCacheException ({@code BAD_SEQUENCE}) when a live sequence already has this id
     */
    public KvSequence newSequence(long id) {
        return newSequence(id, 4 * tpb);
    }

    /**
     * Starts an empty sequence whose block table has room for {@code expectedTokens}, so appends up to that
     * length never touch the heap (beyond it the table doubles). A hint: the table never gets more entries than
     * the cache has blocks, however many tokens are expected.
     *
     * @throws KvCacheException ({@code BAD_SEQUENCE}) when a live sequence already has this id
     */
    public KvSequence newSequence(long id, int expectedTokens) {
        requireOpen();
        requireCount(expectedTokens);
        requireUnusedId(id);
        long blocks = Math.min(config.numBlocks(), ((long) expectedTokens + tpb - 1) / tpb); // no int overflow
        KvSequence s = new KvSequence(id, this, new int[(int) Math.max(1, blocks)], 0, 0);
        live.put(id, s);
        return s;
    }

    /**
     * The live sequence with this id.
     *
     * @throws KvCacheException ({@code BAD_SEQUENCE}) when there is none
     */
    public KvSequence sequence(long id) {
        KvSequence s = live.get(id);
        if (s == null) {
            throw new KvCacheException(Reason.BAD_SEQUENCE, "[PagedKvCache] no live sequence " + id);
        }
        return s;
    }

    /** Live sequences. */
    public int sequenceCount() {
        return live.size();
    }

    /**
     * Starts sequence {@code childId} holding the same tokens as {@code parent}, sharing all its blocks (each
     * block's reference count goes up by one). O(blocks), no block allocated.
     */
    public KvSequence fork(KvSequence parent, long childId) {
        check(parent);
        requireUnusedId(childId);
        for (int i = 0; i < parent.blocks; i++) {
            allocator.retain(parent.table[i]);
        }
        KvSequence child = new KvSequence(childId, this, Arrays.copyOf(parent.table, Math.max(4, parent.blocks)),
                parent.blocks, parent.length);
        live.put(childId, child);
        return child;
    }

    /** Releases the sequence's blocks (freeing those no other sequence shares) and retires the handle. */
    public void free(KvSequence s) {
        check(s);
        for (int i = 0; i < s.blocks; i++) {
            int b = s.table[i];
            if (allocator.release(b)) {
                pools.remove(b);
            }
        }
        s.blocks = 0;
        s.length = 0;
        s.live = false;
        live.remove(s.id);
    }

    // ---------------------------------------------------------------- growth

    /**
     * Blocks that {@link #append}{@code (s, n)} would take from the pool: new blocks for the tokens that do
     * not fit in the last one, plus one when the last block is partly filled and shared (copy-on-write).
     */
    public int blocksNeeded(KvSequence s, int n) {
        check(s);
        requireCount(n);
        if (n == 0) {
            return 0;
        }
        long after = ((long) s.length + n + tpb - 1) / tpb;
        return (int) Math.min(Integer.MAX_VALUE, after - s.blocks + (copyOnWrite(s) ? 1 : 0));
    }

    /** Whether {@link #append}{@code (s, n)} would succeed. */
    public boolean canAppend(KvSequence s, int n) {
        return blocksNeeded(s, n) <= allocator.freeCount();
    }

    /**
     * Grows {@code s} by {@code n} token slots, allocating blocks as needed and first copying a shared partly
     * filled last block. The new slots hold no data until {@link #write written}.
     *
     * @return the position of the first new token (the old length)
     * @throws KvCacheException ({@code OUT_OF_BLOCKS}) when the pool cannot supply {@link #blocksNeeded}
     */
    public int append(KvSequence s, int n) {
        int need = blocksNeeded(s, n);
        if (need > allocator.freeCount()) {
            throw new KvCacheException(Reason.OUT_OF_BLOCKS, String.format(Locale.ROOT,
                    "[PagedKvCache] sequence %d needs %d more blocks to append %d tokens but %d of %d are free",
                    s.id, need, n, allocator.freeCount(), allocator.capacity()));
        }
        if ((long) s.length + n > Integer.MAX_VALUE) {
            throw new KvCacheException(Reason.OUT_OF_RANGE, "[PagedKvCache] sequence " + s.id + " of length "
                    + s.length + " cannot grow by " + n + " tokens");
        }
        int start = s.length;
        if (n == 0) {
            return start;
        }
        if (copyOnWrite(s)) {
            int shared = s.table[s.blocks - 1];
            int copy = allocateBlock();
            pools.copy(shared, copy);
            allocator.release(shared); // still referenced by the other sharers
            s.table[s.blocks - 1] = copy;
        }
        int after = (int) (((long) start + n + tpb - 1) / tpb);
        if (after > s.table.length) {
            s.table = Arrays.copyOf(s.table, Math.max(after, 2 * s.table.length));
        }
        while (s.blocks < after) {
            s.table[s.blocks++] = allocateBlock();
        }
        s.length = start + n;
        return start;
    }

    // ---------------------------------------------------------------- data

    /**
     * Stores keys and values for tokens {@code [pos, pos+n)} of {@code s} in {@code layer}:
     * {@code k[kOff ..]} and {@code v[vOff ..]} each hold {@code n x kvHeads x headDim} floats. Quantised layers
     * encode each head row as ggml does.
     *
     * @throws KvCacheException for a range past the sequence's length ({@code OUT_OF_RANGE}), short arrays
     *     ({@code BAD_ARGUMENT}), or a token in a block shared with another sequence ({@code SHARED_BLOCK})
     */
    public void write(KvSequence s, int layer, int pos, int n, float[] k, int kOff, float[] v, int vOff) {
        checkRows(s, layer, pos, n, k, kOff, v, vOff);
        for (int i = pos / tpb, last = n == 0 ? -1 : (pos + n - 1) / tpb; i <= last; i++) {
            if (allocator.refCount(s.table[i]) > 1) {
                throw new KvCacheException(Reason.SHARED_BLOCK, String.format(Locale.ROOT,
                        "[PagedKvCache] sequence %d: tokens [%d, %d) of block %d are shared with %d other "
                                + "sequence(s); shared history is read-only", s.id, i * tpb, (i + 1) * tpb,
                        s.table[i], allocator.refCount(s.table[i]) - 1));
            }
        }
        BlockFormat format = formats[layer];
        for (int t = 0; t < n; t++) {
            int p = pos + t;
            int b = s.table[p / tpb];
            MemorySegment seg = pools.segment(layer, b);
            long row = pools.offset(layer, b) + (long) (p % tpb) * headRowBytes[layer];
            for (int h = 0; h < kvHeads; h++) {
                long at = row + (long) h * tpb * headRowBytes[layer];
                int src = t * tokenValues + h * headDim;
                format.encode(k, kOff + src, seg, at, headDim);
                format.encode(v, vOff + src, seg, at + keysBytes[layer], headDim);
            }
        }
    }

    /**
     * Decodes keys and values of tokens {@code [pos, pos+n)} of {@code s} in {@code layer} into
     * {@code k[kOff ..]} and {@code v[vOff ..]}, {@code n x kvHeads x headDim} floats each.
     *
     * @throws KvCacheException for a range past the sequence's length or short arrays
     */
    public void read(KvSequence s, int layer, int pos, int n, float[] k, int kOff, float[] v, int vOff) {
        checkRows(s, layer, pos, n, k, kOff, v, vOff);
        BlockFormat format = formats[layer];
        for (int t = 0; t < n; t++) {
            int p = pos + t;
            int b = s.table[p / tpb];
            MemorySegment seg = pools.segment(layer, b);
            long row = pools.offset(layer, b) + (long) (p % tpb) * headRowBytes[layer];
            for (int h = 0; h < kvHeads; h++) {
                long at = row + (long) h * tpb * headRowBytes[layer];
                int dst = t * tokenValues + h * headDim;
                format.decode(seg, at, k, kOff + dst, headDim);
                format.decode(seg, at + keysBytes[layer], v, vOff + dst, headDim);
            }
        }
    }

    // ---------------------------------------------------------------- accounting

    public int freeBlocks() {
        return allocator.freeCount();
    }

    public int usedBlocks() {
        return allocator.usedCount();
    }

    /** Sequences referencing {@code block}; 0 when free. */
    public int refCount(int block) {
        return allocator.refCount(block);
    }

    /** Block usage, fragmentation and residency; O(blocks + table entries). */
    public KvMemoryStats memoryStats() {
        int[] filled = new int[config.numBlocks()];
        for (KvSequence s : live.values()) {
            for (int i = 0; i < s.blocks; i++) {
                int inBlock = Math.min(tpb, s.length - i * tpb);
                filled[s.table[i]] = Math.max(filled[s.table[i]], inBlock);
            }
        }
        long filledSlots = 0;
        int shared = 0;
        int ram = 0;
        int spilled = 0;
        for (int b = 0; b < filled.length; b++) {
            if (allocator.refCount(b) > 0) {
                filledSlots += filled[b];
                shared += allocator.refCount(b) > 1 ? 1 : 0;
                if (pools.inRam(b)) {
                    ram++;
                } else {
                    spilled++;
                }
            }
        }
        long ramBytes = 0;
        long fileBytes = 0;
        for (int l = 0; l < config.layers(); l++) {
            ramBytes += config.ramBlocks() * config.blockBytes(l);
            fileBytes += config.fileBlocks() * config.blockBytes(l);
        }
        return new KvMemoryStats(usedBlocks(), freeBlocks(), shared, (long) usedBlocks() * tpb, filledSlots, ram,
                spilled, pools.demotions(), ramBytes, fileBytes);
    }

    /**
     * Checks the cache's invariants and throws {@link IllegalStateException} naming the first broken one:
     * every block is free or referenced, each reference count equals the number of block-table entries naming
     * the block, every table is as long as its sequence needs, and every used block has bytes. O(blocks +
     * table entries); for tests and debugging.
     */
    public void audit() {
        allocator.audit();
        int[] refs = new int[config.numBlocks()];
        for (KvSequence s : live.values()) {
            if (!s.live || s.owner != this) {
                throw new IllegalStateException(s + " is registered but not live");
            }
            if (s.blocks != (s.length + tpb - 1) / tpb) {
                throw new IllegalStateException(s + " has " + s.blocks + " blocks for " + s.length + " tokens");
            }
            for (int i = 0; i < s.blocks; i++) {
                refs[s.table[i]]++;
            }
        }
        for (int b = 0; b < refs.length; b++) {
            if (refs[b] != allocator.refCount(b)) {
                throw new IllegalStateException("block " + b + " has reference count " + allocator.refCount(b)
                        + " but " + refs[b] + " block-table entries");
            }
            if ((refs[b] > 0) != pools.placed(b)) {
                throw new IllegalStateException("block " + b + (refs[b] > 0 ? " is used but has no bytes"
                        : " is free but still holds a slot"));
            }
        }
    }

    /** Releases the pools and unmaps (and unlocks) the spill file; later calls fail. Idempotent. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            for (KvSequence s : live.values()) {
                s.live = false;
            }
            live.clear();
            pools.close();
        }
    }

    // ---------------------------------------------------------------- for graphs (Op.PagedAttention)

    /**
     * {@code layer}'s in-memory blocks as {@code Op.PagedAttention} reads its {@code pool} operand:
     * {@code config().ramBlocks() x config().blockBytes(layer)} bytes, each block keys then values, each
     * {@code [kvHeads][tokensPerBlock][headRowBytes]}. A read-only view of the live pool: writes show through; do
     * not use it after {@link #close()}.
     */
    public MemorySegment ramPool(int layer) {
        requireOpen();
        checkLayer(layer);
        return pools.ramView(layer);
    }

    /**
     * {@code layer}'s blocks in the spill file, as the op's {@code spill} operand: {@code config().fileBlocks() x
     * config().blockBytes(layer)} bytes, read-only; empty without spill.
     */
    public MemorySegment spillPool(int layer) {
        requireOpen();
        checkLayer(layer);
        return pools.fileView(layer);
    }

    /**
     * Writes where each of {@code s}'s blocks lives, in table order, to {@code dst[dstOff ..]} in
     * {@code Op.PagedAttention}'s block-table encoding: a block in memory as its slot of {@link #ramPool}, a
     * spilled one as {@code -(slot + 1)} of {@link #spillPool}. Valid for every layer until the next
     * {@link #append}, {@link #fork} or {@link #free} (an append may move the oldest block to the spill file).
     *
     * @return the number of entries written, {@code s.blockCount()}
     * @throws KvCacheException for a freed or foreign sequence, or too little room in {@code dst}
     */
    public int slotTable(KvSequence s, int[] dst, int dstOff) {
        check(s);
        if (dstOff < 0 || dstOff > dst.length - s.blocks) {
            throw new KvCacheException(Reason.BAD_ARGUMENT, String.format(Locale.ROOT,
                    "[PagedKvCache] sequence %d has %d blocks; dst of %d from %d has no room", s.id, s.blocks,
                    dst.length, dstOff));
        }
        for (int i = 0; i < s.blocks; i++) {
            dst[dstOff + i] = pools.slot(s.table[i]);
        }
        return s.blocks;
    }

    // ---------------------------------------------------------------- for PagedAttention

    BlockFormat format(int layer) {
        return formats[layer];
    }

    /** Throws unless {@code s} is a live sequence of this open cache. */
    void check(KvSequence s) {
        requireOpen();
        if (s.owner != this) {
            throw new KvCacheException(Reason.BAD_SEQUENCE, "[PagedKvCache] sequence " + s.id
                    + " belongs to another cache");
        }
        if (!s.live) {
            throw new KvCacheException(Reason.BAD_SEQUENCE, "[PagedKvCache] sequence " + s.id + " was freed");
        }
    }

    void checkLayer(int layer) {
        if (layer < 0 || layer >= config.layers()) {
            throw new KvCacheException(Reason.OUT_OF_RANGE, String.format(Locale.ROOT,
                    "[PagedKvCache] layer %d is out of range [0, %d)", layer, config.layers()));
        }
    }

    // ---------------------------------------------------------------- internals

    private boolean copyOnWrite(KvSequence s) {
        return s.length % tpb != 0 && allocator.refCount(s.table[s.blocks - 1]) > 1;
    }

    private int allocateBlock() {
        int b = allocator.allocate();
        pools.place(b);
        return b;
    }

    private void checkRows(KvSequence s, int layer, int pos, int n, float[] k, int kOff, float[] v, int vOff) {
        check(s);
        checkLayer(layer);
        requireCount(n);
        if (pos < 0 || (long) pos + n > s.length) {
            throw new KvCacheException(Reason.OUT_OF_RANGE, String.format(Locale.ROOT,
                    "[PagedKvCache] sequence %d holds %d tokens; tokens [%d, %d) are out of range", s.id,
                    s.length, pos, (long) pos + n));
        }
        long values = (long) n * tokenValues;
        if (kOff < 0 || kOff + values > k.length || vOff < 0 || vOff + values > v.length) {
            throw new KvCacheException(Reason.BAD_ARGUMENT, String.format(Locale.ROOT,
                    "[PagedKvCache] %d tokens x %d kv heads x %d need %d floats from offsets k=%d, v=%d, but the"
                            + " arrays hold k=%d, v=%d", n, kvHeads, headDim, values, kOff, vOff, k.length,
                    v.length));
        }
    }

    private static void requireCount(int n) {
        if (n < 0) {
            throw new KvCacheException(Reason.BAD_ARGUMENT, "[PagedKvCache] token count must be >= 0 but is " + n);
        }
    }

    private void requireUnusedId(long id) {
        if (live.containsKey(id)) {
            throw new KvCacheException(Reason.BAD_SEQUENCE, "[PagedKvCache] sequence " + id + " already exists");
        }
    }

    private void requireOpen() {
        if (closed) {
            throw new KvCacheException(Reason.BAD_STATE, "[PagedKvCache] the cache is closed");
        }
    }
}
