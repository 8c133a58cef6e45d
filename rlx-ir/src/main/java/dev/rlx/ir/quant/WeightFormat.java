package dev.rlx.ir.quant;

import java.lang.foreign.MemorySegment;

/**
 * How a weight matrix's rows are stored: ggml's block formats (byte for byte what llama.cpp writes as
 * {@code GGML_TYPE_*}), the operand layout of {@code Op.QuantMatMul}. A row of {@code k} weights is
 * {@code k / blockElems()} consecutive blocks of {@link #blockBytes()} each. The reference decoders are here, one
 * implementation for the GGUF reader, the kernels' tests and the reference interpreter.
 *
 * <p>The five that are also KV-cache storage formats ({@link BlockFormat}) decode through it (the same bytes);
 * BF16 and the "type 1" blocks through {@link LinearQuants}, the K-quants through {@link KQuants}.
 */
public enum WeightFormat {
    F32(1, 4, BlockFormat.F32),
    F16(1, 2, BlockFormat.F16),
    BF16(1, 2, null),
    Q8_0(32, 34, BlockFormat.Q8_0),
    Q4_0(32, 18, BlockFormat.Q4_0),
    Q4_1(32, 20, null),
    Q5_0(32, 22, BlockFormat.Q5_0),
    Q5_1(32, 24, null),
    Q4_K(256, 144, null),
    Q5_K(256, 176, null),
    Q6_K(256, 210, null),
    Q8_K(256, 292, null);

    private final int blockElems;
    private final int blockBytes;
    private final BlockFormat storage;

    WeightFormat(int blockElems, int blockBytes, BlockFormat storage) {
        this.blockElems = blockElems;
        this.blockBytes = blockBytes;
        this.storage = storage;
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
        return storage;
    }

    /** Whether {@link #encode} is available (all but the K-quants, which RLX only reads). */
    public boolean encodable() {
        return blockElems != 256;
    }

    /**
     * Bytes of a row of {@code k} weights, or -1 when {@code k} is negative, not a whole number of blocks, or
     * the size overflows a long.
     */
    public long rowBytes(long k) {
        if (k < 0 || k % blockElems != 0) {
            return -1;
        }
        long blocks = k / blockElems;
        return blocks > Long.MAX_VALUE / blockBytes ? -1 : blocks * blockBytes;
    }

    /**
     * Decodes the {@code n} values stored from byte {@code off} of {@code src} into {@code dst[dstOff ..]}, as
     * ggml's {@code dequantize_row_*}. {@code n} must be a whole number of blocks and the ranges in bounds (the
     * caller checks; the GGUF reader does, with the file offset in its error).
     */
    public void decode(MemorySegment src, long off, float[] dst, int dstOff, int n) {
        if (storage != null) {
            storage.decode(src, off, dst, dstOff, n);
            return;
        }
        switch (this) {
            case BF16 -> LinearQuants.decodeBf16(src, off, dst, dstOff, n);
            case Q4_1, Q5_1 -> LinearQuants.decode(this, src, off, dst, dstOff, n);
            default -> KQuants.decode(this, src, off, dst, dstOff, n);
        }
    }

    /**
     * Encodes {@code src[srcOff .. srcOff + n)} into {@code dst} from byte {@code off}, in the bytes ggml's
     * reference quantiser writes. Ranges as for {@link #decode}.
     *
     * @throws BlockFormatException for a K-quant (RLX reads them, it does not write them)
     */
    public void encode(float[] src, int srcOff, MemorySegment dst, long off, int n) {
        if (!encodable()) {
            throw new BlockFormatException(this + ": RLX reads this format but does not write it");
        }
        if (storage != null) {
            storage.encode(src, srcOff, dst, off, n);
            return;
        }
        switch (this) {
            case BF16 -> LinearQuants.encodeBf16(src, srcOff, dst, off, n);
            default -> LinearQuants.encode(this, src, srcOff, dst, off, n);
        }
    }
}
