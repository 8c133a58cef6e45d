package dev.rlx.llm.kv;

import java.lang.foreign.MemorySegment;
import java.util.Locale;

/**
 * How one layer of a KV cache stores its keys and values: plain f32 (the exact reference), f16, or one of
 * ggml's 32-value block formats with the same byte layout as llama.cpp's {@code GGML_TYPE_Q8_0},
 * {@code GGML_TYPE_Q5_0} and {@code GGML_TYPE_Q4_0}.
 *
 * <table>
 *   <caption>Bytes per 32 values</caption>
 *   <tr><th>storage</th><th>bytes</th><th>bits per value</th><th>vs F16</th></tr>
 *   <tr><td>F32</td><td>128</td><td>32</td><td>0.5x</td></tr>
 *   <tr><td>F16</td><td>64</td><td>16</td><td>1x</td></tr>
 *   <tr><td>Q8_0</td><td>34</td><td>8.5</td><td>1.88x smaller</td></tr>
 *   <tr><td>Q5_0</td><td>22</td><td>5.5</td><td>2.91x smaller</td></tr>
 *   <tr><td>Q4_0</td><td>18</td><td>4.5</td><td>3.56x smaller</td></tr>
 * </table>
 *
 * A cache quantises each head row (headDim values) on its own, so quantised storage needs headDim to be a
 * multiple of 32, as llama.cpp does.
 */
public enum KvStorage {
    F32(new F32Codec()),
    F16(new F16Codec()),
    Q8_0(new Q8_0Codec()),
    Q5_0(new Q5_0Codec()),
    Q4_0(new Q4_0Codec());

    private final BlockCodec codec;

    KvStorage(BlockCodec codec) {
        this.codec = codec;
    }

    /** Values per storage block: 1 for F32 and F16, 32 for the quantised formats. */
    public int blockElems() {
        return codec.blockElems();
    }

    /** Bytes per storage block: 4, 2, 34, 22 or 18. */
    public int blockBytes() {
        return codec.blockBytes();
    }

    /** Whether values are block-quantised (and so must come in multiples of 32). */
    public boolean quantized() {
        return codec instanceof QuantCodec;
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
        return n / blockElems() * blockBytes();
    }

    /**
     * Encodes {@code src[srcOff .. srcOff+n)} into {@code dst} at byte offset {@code dstOff}, in exactly the
     * bytes ggml's reference quantiser writes.
     *
     * @throws KvCacheException when {@code n} is not a whole number of blocks or either range is out of bounds
     */
    public void quantize(float[] src, int srcOff, int n, MemorySegment dst, long dstOff) {
        checkRanges(src.length, srcOff, n, dst.byteSize(), dstOff);
        codec.encode(src, srcOff, dst, dstOff, n);
    }

    /**
     * Decodes {@code n} values stored at byte offset {@code srcOff} of {@code src} into
     * {@code dst[dstOff .. dstOff+n)}.
     *
     * @throws KvCacheException when {@code n} is not a whole number of blocks or either range is out of bounds
     */
    public void dequantize(MemorySegment src, long srcOff, int n, float[] dst, int dstOff) {
        checkRanges(dst.length, dstOff, n, src.byteSize(), srcOff);
        codec.decode(src, srcOff, dst, dstOff, n);
    }

    BlockCodec codec() {
        return codec;
    }

    private void checkRanges(int arrayLength, int arrayOff, int n, long segmentBytes, long segmentOff) {
        long bytes = bytesFor(n);
        if (arrayOff < 0 || arrayOff > arrayLength - n) {
            throw new KvCacheException(KvCacheException.Reason.OUT_OF_RANGE, String.format(Locale.ROOT,
                    "[%s] array range [%d, %d) is outside an array of %d", this, arrayOff, (long) arrayOff + n,
                    arrayLength));
        }
        if (segmentOff < 0 || segmentOff > segmentBytes - bytes) {
            throw new KvCacheException(KvCacheException.Reason.OUT_OF_RANGE, String.format(Locale.ROOT,
                    "[%s] byte range [%d, %d) is outside a segment of %d bytes", this, segmentOff,
                    segmentOff + bytes, segmentBytes));
        }
    }
}
