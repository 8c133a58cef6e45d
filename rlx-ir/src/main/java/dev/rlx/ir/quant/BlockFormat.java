package dev.rlx.ir.quant;

import java.lang.foreign.MemorySegment;
import java.util.Locale;

/**
 * A storage format for float data in fixed-size byte blocks: plain f32 (exact), f16, or one of ggml's 32-value block
 * formats, byte for byte what llama.cpp writes as {@code GGML_TYPE_F16}, {@code GGML_TYPE_Q8_0},
 * {@code GGML_TYPE_Q5_0} and {@code GGML_TYPE_Q4_0} for the same floats. KV caches store keys and values in these
 * (and backends read those pools), GGUF tensors use the same blocks.
 *
 * <table>
 *   <caption>Bytes per 32 values</caption>
 *   <tr><th>format</th><th>bytes</th><th>bits per value</th><th>vs F16</th></tr>
 *   <tr><td>F32</td><td>128</td><td>32</td><td>0.5x</td></tr>
 *   <tr><td>F16</td><td>64</td><td>16</td><td>1x</td></tr>
 *   <tr><td>Q8_0</td><td>34</td><td>8.5</td><td>1.88x smaller</td></tr>
 *   <tr><td>Q5_0</td><td>22</td><td>5.5</td><td>2.91x smaller</td></tr>
 *   <tr><td>Q4_0</td><td>18</td><td>4.5</td><td>3.56x smaller</td></tr>
 * </table>
 *
 * <p>Values are encoded and decoded a whole number of blocks at a time; the quantised formats' rules (ggml's
 * reference quantisers, not its SIMD ones) are in {@link QuantCodec}. Every method is thread-safe and allocates
 * nothing unless it throws.
 */
public enum BlockFormat {
    F32(new F32Codec()),
    F16(new F16Codec()),
    Q8_0(new Q8_0Codec()),
    Q5_0(new Q5_0Codec()),
    Q4_0(new Q4_0Codec());

    private final BlockCodec codec;

    BlockFormat(BlockCodec codec) {
        this.codec = codec;
    }

    /** Values per block: 1 for F32 and F16, 32 for the quantised formats. */
    public int blockElems() {
        return codec.blockElems();
    }

    /** Bytes per block: 4, 2, 34, 22 or 18. */
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
     * @throws BlockFormatException when {@code n} is negative or not a multiple of {@link #blockElems()}
     */
    public long bytesFor(long n) {
        if (n < 0 || n % blockElems() != 0) {
            throw new BlockFormatException(String.format(Locale.ROOT,
                    "[%s] %d values is not a whole number of %d-value blocks", this, n, blockElems()));
        }
        return n / blockElems() * blockBytes();
    }

    /**
     * Encodes {@code src[srcOff .. srcOff+n)} into {@code dst} from byte offset {@code dstOff}, in exactly the bytes
     * ggml's reference quantiser writes.
     *
     * @throws BlockFormatException when {@code n} is not a whole number of blocks or either range is out of bounds
     */
    public void encode(float[] src, int srcOff, MemorySegment dst, long dstOff, int n) {
        checkRanges(src.length, srcOff, n, dst.byteSize(), dstOff);
        codec.encode(src, srcOff, dst, dstOff, n);
    }

    /**
     * Decodes the {@code n} values stored from byte offset {@code srcOff} of {@code src} into
     * {@code dst[dstOff .. dstOff+n)}.
     *
     * @throws BlockFormatException when {@code n} is not a whole number of blocks or either range is out of bounds
     */
    public void decode(MemorySegment src, long srcOff, float[] dst, int dstOff, int n) {
        checkRanges(dst.length, dstOff, n, src.byteSize(), srcOff);
        codec.decode(src, srcOff, dst, dstOff, n);
    }

    private void checkRanges(int arrayLength, int arrayOff, int n, long segmentBytes, long segmentOff) {
        long bytes = bytesFor(n);
        if (arrayOff < 0 || arrayOff > arrayLength - n) {
            throw new BlockFormatException(String.format(Locale.ROOT,
                    "[%s] array range [%d, %d) is outside an array of %d", this, arrayOff, (long) arrayOff + n,
                    arrayLength));
        }
        if (segmentOff < 0 || segmentOff > segmentBytes - bytes) {
            throw new BlockFormatException(String.format(Locale.ROOT,
                    "[%s] byte range [%d, %d) is outside a segment of %d bytes", this, segmentOff,
                    segmentOff + bytes, segmentBytes));
        }
    }
}
