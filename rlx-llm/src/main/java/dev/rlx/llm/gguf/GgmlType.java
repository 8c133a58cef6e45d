package dev.rlx.llm.gguf;

import dev.rlx.ir.quant.BlockFormat;
import dev.rlx.ir.quant.WeightFormat;
import java.lang.foreign.MemorySegment;

/**
 * The tensor types a GGUF file may hold that RLX reads ({@code ggml_type} ids), with their block geometry and
 * a decoder to f32: each is a {@link WeightFormat} (the layout {@code Op.QuantMatMul} reads, and the one
 * implementation of ggml's block decoding). Types that {@link #encodable()} can also be written from floats by
 * {@link GgufWriter}, with ggml's reference quantisers.
 */
public enum GgmlType {
    F32(0, WeightFormat.F32),
    F16(1, WeightFormat.F16),
    Q4_0(2, WeightFormat.Q4_0),
    Q4_1(3, WeightFormat.Q4_1),
    Q5_0(6, WeightFormat.Q5_0),
    Q5_1(7, WeightFormat.Q5_1),
    Q8_0(8, WeightFormat.Q8_0),
    Q4_K(12, WeightFormat.Q4_K),
    Q5_K(13, WeightFormat.Q5_K),
    Q6_K(14, WeightFormat.Q6_K),
    Q8_K(15, WeightFormat.Q8_K),
    BF16(30, WeightFormat.BF16);

    private final int id;
    private final WeightFormat format;

    GgmlType(int id, WeightFormat format) {
        this.id = id;
        this.format = format;
    }

    /** The weight layout with these bytes: what {@code Op.QuantMatMul} reads. */
    public WeightFormat weightFormat() {
        return format;
    }

    /** The id written in the file. */
    public int id() {
        return id;
    }

    /** Values per block: 1, 32 or 256. */
    public int blockElems() {
        return format.blockElems();
    }

    /** Bytes per block. */
    public int blockBytes() {
        return format.blockBytes();
    }

    /** The KV-cache storage format with the same bytes, or null. */
    public BlockFormat blockFormat() {
        return format.blockFormat();
    }

    /** Whether {@link #encode} is available (all but the K-quants, which RLX only reads). */
    public boolean encodable() {
        return format.encodable();
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
        return format.rowBytes(n);
    }

    /**
     * Decodes the {@code n} values stored from byte {@code srcOff} of {@code src} into {@code dst[dstOff ..]}.
     *
     * @throws GgufFormatException when {@code n} is not a whole number of blocks or a range is out of bounds
     */
    public void decode(MemorySegment src, long srcOff, float[] dst, int dstOff, int n) {
        checkRanges(n, dst.length, dstOff, src.byteSize(), srcOff);
        format.decode(src, srcOff, dst, dstOff, n);
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
        format.encode(src, srcOff, dst, dstOff, n);
    }

    private long checkRanges(int n, int arrayLength, int arrayOff, long segmentBytes, long segmentOff) {
        long bytes = bytesFor(n);
        if (bytes < 0) {
            throw new GgufFormatException("[" + this + "] " + n + " values is not a whole number of "
                    + blockElems() + "-value blocks", -1);
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
