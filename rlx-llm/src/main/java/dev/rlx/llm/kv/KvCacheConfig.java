package dev.rlx.llm.kv;

import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Geometry of a {@link PagedKvCache}: {@code layers} layers of {@code kvHeads} key/value heads of
 * {@code headDim} values, stored in {@code numBlocks} blocks of {@code tokensPerBlock} token slots. Each layer
 * picks its own {@link KvStorage}; the block ids (and so every sequence's block table) are shared by all
 * layers, each layer having its own pool of bytes.
 *
 * @param layers number of transformer layers, at least 1
 * @param kvHeads key/value heads per layer, at least 1
 * @param headDim values per head; a multiple of 32 for quantised layers
 * @param tokensPerBlock token slots per block, at least 1 (16 is typical)
 * @param numBlocks blocks in the pool, at least 1
 * @param layerStorage one storage type per layer
 * @param spill where blocks beyond the RAM budget live, or {@code null} to keep every block in RAM
 */
public record KvCacheConfig(int layers, int kvHeads, int headDim, int tokensPerBlock, int numBlocks,
                            List<KvStorage> layerStorage, Spill spill) {

    /**
     * Lets a cache hold more blocks than {@code ramBudgetBytes} of RAM: the cache keeps
     * {@code ramBudgetBytes / bytes-per-block} blocks in process memory and the rest in {@code file}, mapped
     * into memory, so the OS pages that history in and out. Blocks move to the file oldest first, once each,
     * when the RAM part is full (the block being written is always in RAM until it is old).
     *
     * @param file the spill file
     * @param ramBudgetBytes bytes of block storage (all layers, keys and values) kept in process memory
     * @param mode whether to create the file or open one that exists
     */
    public record Spill(Path file, long ramBudgetBytes, Mode mode) {
        /** How the spill file is obtained. */
        public enum Mode {
            /**
             * Create the file, or replace an existing RLX spill file of any geometry; refuses to overwrite any
             * other file.
             */
            CREATE,
            /**
             * Open a spill file that already exists (for example one provisioned ahead of time), checking that
             * its header matches this geometry. Its previous contents are not read as data.
             */
            OPEN
        }

        public Spill {
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(mode, "mode");
            if (ramBudgetBytes < 0) {
                throw bad("ramBudgetBytes must be >= 0 but is %d", ramBudgetBytes);
            }
        }
    }

    public KvCacheConfig {
        positive("layers", layers);
        positive("kvHeads", kvHeads);
        positive("headDim", headDim);
        positive("tokensPerBlock", tokensPerBlock);
        positive("numBlocks", numBlocks);
        Objects.requireNonNull(layerStorage, "layerStorage");
        layerStorage = List.copyOf(layerStorage);
        if (layerStorage.size() != layers) {
            throw bad("layerStorage has %d entries but there are %d layers", layerStorage.size(), layers);
        }
        for (int l = 0; l < layers; l++) {
            KvStorage s = layerStorage.get(l);
            if (headDim % s.blockElems() != 0) {
                throw bad("layer %d stores %s, whose %d-value blocks do not tile headDim %d", l, s,
                        s.blockElems(), headDim);
            }
        }
        if ((long) kvHeads * headDim * Math.max(2, tokensPerBlock) > Integer.MAX_VALUE / 2) {
            throw bad("kvHeads %d x headDim %d x tokensPerBlock %d values do not fit in Java arrays", kvHeads,
                    headDim, tokensPerBlock);
        }
        try { // every pool size must fit in a long
            long total = 0;
            for (KvStorage s : layerStorage) {
                long perBlock = Math.multiplyExact(2L * kvHeads * tokensPerBlock, s.bytesFor(headDim));
                total = Math.addExact(total, Math.multiplyExact(perBlock, (long) numBlocks));
            }
        } catch (ArithmeticException e) {
            throw bad("%d blocks of %d tokens x %d kv heads x %d values over %d layers overflow a 64-bit size",
                    numBlocks, tokensPerBlock, kvHeads, headDim, layers);
        }
    }

    /** One storage type for every layer, no spill. */
    public static KvCacheConfig of(int layers, int kvHeads, int headDim, int tokensPerBlock, int numBlocks,
                                   KvStorage storage) {
        Objects.requireNonNull(storage, "storage");
        return new KvCacheConfig(layers, kvHeads, headDim, tokensPerBlock, numBlocks,
                Collections.nCopies(Math.max(layers, 0), storage), null);
    }

    /** This geometry with one storage type per layer. */
    public KvCacheConfig withLayerStorage(List<KvStorage> perLayer) {
        return new KvCacheConfig(layers, kvHeads, headDim, tokensPerBlock, numBlocks, perLayer, spill);
    }

    /** This geometry with blocks beyond {@code spill.ramBudgetBytes()} kept in a mapped file. */
    public KvCacheConfig withSpill(Spill s) {
        return new KvCacheConfig(layers, kvHeads, headDim, tokensPerBlock, numBlocks, layerStorage, s);
    }

    public KvStorage storage(int layer) {
        return layerStorage.get(layer);
    }

    /** Bytes of one head's key (or value) for one token in {@code layer}. */
    public long headRowBytes(int layer) {
        return storage(layer).bytesFor(headDim);
    }

    /** Bytes of keys and values for one token in {@code layer}: {@code 2 * kvHeads * headRowBytes}. */
    public long bytesPerToken(int layer) {
        return 2 * kvHeads * headRowBytes(layer);
    }

    /** Bytes of one block in {@code layer}: keys then values, each {@code [kvHeads][tokensPerBlock][headRow]}. */
    public long blockBytes(int layer) {
        return bytesPerToken(layer) * tokensPerBlock;
    }

    /** Bytes of one block summed over all layers. */
    public long blockBytesAllLayers() {
        long sum = 0;
        for (int l = 0; l < layers; l++) {
            sum += blockBytes(l);
        }
        return sum;
    }

    /** Token slots in the whole pool. */
    public long tokenCapacity() {
        return (long) numBlocks * tokensPerBlock;
    }

    /** Blocks held in RAM: all of them without a spill file, else as many as the RAM budget pays for. */
    public int ramBlocks() {
        return spill == null ? numBlocks : (int) Math.min(numBlocks, spill.ramBudgetBytes() / blockBytesAllLayers());
    }

    /** Blocks held in the spill file: {@code numBlocks - ramBlocks()}. */
    public int fileBlocks() {
        return numBlocks - ramBlocks();
    }

    private static void positive(String name, int v) {
        if (v < 1) {
            throw bad("%s must be >= 1 but is %d", name, v);
        }
    }

    private static KvCacheException bad(String format, Object... args) {
        return new KvCacheException(KvCacheException.Reason.BAD_ARGUMENT,
                "[KvCacheConfig] " + String.format(Locale.ROOT, format, args));
    }
}
