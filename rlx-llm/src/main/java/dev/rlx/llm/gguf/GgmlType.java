package dev.rlx.llm.gguf;

import dev.rlx.ir.quant.BlockFormat;
import java.lang.foreign.MemorySegment;

/**
 * The tensor types a GGUF file may hold that RLX reads ({@code ggml_type} ids), with their block geometry and
 * a decoder to f32. The five that are also KV-cache storage formats decode through {@link BlockFormat} (the
 * same bytes); the others are decoded here ({@link LinearQuants}, {@link KQuants}). Types that
 * {@link #encodable()} can also be written from floats by {@link GgufWriter}, with ggml's reference quantisers.
 *
 * <p>{@link BlockFormat} is not extended with these: it is the KV cache's storage enum, and every backend's
 * paged attention switches over all of its constants.
 */
public enum GgmlType {
    F32(0, 1, 4, BlockFormat.F32),
    F16(1, 1, 2, BlockFormat.F16),
    Q4_0(2, 32, 18, BlockFormat.Q4_0),
    Q4_1(3, 32, 20, null),
    Q5_0(6, 32, 22, BlockFormat.Q5_0),
    Q5_1(7, 32, 24, null),
    Q8_0(8, 32, 34, BlockFormat.Q8_0),
    Q4_K(12, 256, 144, null),
    Q5_K(13, 256, 176, null),
    Q6_K(14, 256, 210, null),
    Q8_K(15, 256, 292, null),
    BF16(30, 1, 2, null);

    private final int id;
    private final int blockElems;
    private final int blockBytes;
    private final BlockFormat format;

    GgmlType(int id, int blockElems, int blockBytes, BlockFormat format) {
        this.id = id;
        this.blockElems = blockElems;
        this.blockBytes = blockBytes;
        this.format = format;
    }

    /** The id written in the file. */
    public int id() {
        return id;
    }

    /** Values per block: 1, 32 or 256. */
    public int blockElems() {
        return blockElems;
    }

    /** Bytes per block. */
    public int blockBytes() {
        return blockBytes;
    }

    /** The KV-cache storage format with the same bytes, or null. */
    public BlockFormat blockFormat() {
        return format;
    }

    /** Whether {@link #encode} is available (all but the K-quants, which RLX only reads). */
    public boolean encodable() {
        return blockElems != 256;
    }

    /** The type with on-disk id {@code id}, or null when RLX does not read it. */
    public static GgmlType ofId(long id) {
        for (GgmlType t : values()) {
            if (t.id == id) {
                return t;
            }
        }
        return null;
    }

    /**
     * Bytes {@code n} values take, or -1 when {@code n} is negative, not a whole number of blocks, or the size
     * overflows a long.
     */
    public long bytesFor(long n) {
        if (n < 0 || n % blockElems != 0) {
            return -1;
        }
        long blocks = n / blockElems;
        return blocks > Long.MAX_VALUE / blockBytes ? -1 : blocks * blockBytes;
    }

    /**
     * Decodes the {@code n} values stored from byte {@code srcOff} of {@code src} into {@code dst[dstOff ..]}.
     *
     * @throws GgufFormatException when {@code n} is not a whole number of blocks or a range is out of bounds
     */
    public void decode(MemorySegment src, long srcOff, float[] dst, int dstOff, int n) {
        checkRanges(n, dst.length, dstOff, src.byteSize(), srcOff);
        if (format != null) {
            format.decode(src, srcOff, dst, dstOff, n);
            return;
        }
        switch (this) {
            case BF16 -> LinearQuants.decodeBf16(src, srcOff, dst, dstOff, n);
            case Q4_1, Q5_1 -> LinearQuants.decode(this, src, srcOff, dst, dstOff, n);
            default -> KQuants.decode(this, src, srcOff, dst, dstOff, n);
        }
    }

    /**
     * Encodes {@code src[srcOff .. srcOff+n)} into {@code dst} from byte {@code dstOff}, in the bytes ggml's
     * reference quantiser writes.
     *
     * @throws GgufFormatException for a K-quant (read only), a partial block or a range out of bounds
     */
    public void encode(float[] src, int srcOff, MemorySegment dst, long dstOff, int n) {
        if (!encodable()) {
            throw new GgufFormatException("[" + this + "] RLX reads this type but does not write it", -1);
        }
        checkRanges(n, src.length, srcOff, dst.byteSize(), dstOff);
        if (format != null) {
            format.encode(src, srcOff, dst, dstOff, n);
            return;
        }
        switch (this) {
            case BF16 -> LinearQuants.encodeBf16(src, srcOff, dst, dstOff, n);
            default -> LinearQuants.encode(this, src, srcOff, dst, dstOff, n);
        }
    }

    private long checkRanges(int n, int arrayLength, int arrayOff, long segmentBytes, long segmentOff) {
        long bytes = bytesFor(n);
        if (bytes < 0) {
            throw new GgufFormatException("[" + this + "] " + n + " values is not a whole number of "
                    + blockElems + "-value blocks", -1);
        }
        if (arrayOff < 0 || arrayOff > arrayLength - n) {
            throw new GgufFormatException("[" + this + "] array range [" + arrayOff + ", " + ((long) arrayOff + n)
                    + ") is outside an array of " + arrayLength, -1);
        }
        if (segmentOff < 0 || segmentOff > segmentBytes - bytes) {
            throw new GgufFormatException("[" + this + "] byte range [" + segmentOff + ", " + (segmentOff + bytes)
                    + ") is outside a segment of " + segmentBytes + " bytes", -1);
        }
        return bytes;
    }
}
