package dev.rlx.ir.quant;

import java.lang.foreign.MemorySegment;

/**
 * Encodes floats into one {@link BlockFormat}'s byte blocks and back. A block holds {@link #blockElems()}
 * consecutive values in {@link #blockBytes()} bytes; {@code n} below is always a multiple of the block size
 * and callers have checked every bound, so implementations do no argument checks of their own.
 */
sealed interface BlockCodec permits F32Codec, F16Codec, QuantCodec {
    int blockElems();

    int blockBytes();

    /** Writes {@code src[srcOff .. srcOff+n)} as {@code n / blockElems} blocks at {@code dst[dstOff ..]}. */
    void encode(float[] src, int srcOff, MemorySegment dst, long dstOff, int n);

    /** Reads {@code n / blockElems} blocks at {@code src[srcOff ..]} into {@code dst[dstOff .. dstOff+n)}. */
    void decode(MemorySegment src, long srcOff, float[] dst, int dstOff, int n);
}
