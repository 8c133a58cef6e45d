package dev.rlx.llm.kv;

import dev.rlx.ir.quant.BlockFormat;
import java.util.Locale;

/**
 * How one layer of a KV cache stores its keys and values: one of the {@link BlockFormat}s (plain f32, the exact
 * reference; f16; ggml's Q8_0, Q5_0 and Q4_0 blocks, byte for byte what llama.cpp writes). See
 * {@link BlockFormat} for the bytes each takes.
 *
 * A cache quantises each head row (headDim values) on its own, so quantised storage needs headDim to be a
 * multiple of 32, as llama.cpp does.
 */
public enum KvStorage {
    F32(BlockFormat.F32),
    F16(BlockFormat.F16),
    Q8_0(BlockFormat.Q8_0),
    Q5_0(BlockFormat.Q5_0),
    Q4_0(BlockFormat.Q4_0);

    private final BlockFormat format;

    KvStorage(BlockFormat format) {
        this.format = format;
    }

    /** The block format the cache's pools hold for this storage (what a backend reading them decodes). */
    public BlockFormat format() {
        return format;
    }

    /** Values per storage block: 1 for F32 and F16, 32 for the quantised formats. */
    public int blockElems() {
        return format.blockElems();
    }

    /** Bytes per storage block: 4, 2, 34, 22 or 18. */
    public int blockBytes() {
        return format.blockBytes();
    }

    /** Whether values are block-quantised (and so must come in multiples of 32). */
    public boolean quantized() {
        return format.quantized();
    }

    /**
     * Bytes that {@code n} values take.
     *
     * @throws KvCacheException ({@link KvCacheException.Reason#BAD_ARGUMENT}) when {@code n} is negative or not a
     *     multiple of {@link #blockElems()}
     */
    public long bytesFor(long n) {
        if (n < 0 || n % blockElems() != 0) {
            throw new KvCacheException(KvCacheException.Reason.BAD_ARGUMENT, String.format(Locale.ROOT,
                    "[%s] %d values is not a whole number of %d-value blocks", this, n, blockElems()));
        }
        return format.bytesFor(n);
    }
}
