package dev.rlx.ir.quant;

import dev.rlx.ir.HalfFloats;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The ggml "type 0" block formats: 32 values per block behind one fp16 scale {@code d}, quantised by ggml's
 * reference functions ({@code quantize_row_q*_0_ref} in {@code ggml-quants.c}) and decoded as
 * {@code dequantize_row_q*_0}, so the bytes are the ones llama.cpp writes for the same floats.
 *
 * <p>Shared rules, taken from ggml and easy to get subtly wrong:
 * <ul>
 *   <li>the scale is computed in f32 and its reciprocal {@code id = d != 0 ? 1/d : 0} is taken from that
 *       unrounded f32 value; only the stored copy is rounded to fp16 (nearest even), and decoding uses the
 *       stored fp16 value;</li>
 *   <li>every step is a separate f32 operation ({@code x*id}, then {@code + bias}), no fused multiply-add;</li>
 *   <li>float-to-integer conversions truncate toward zero (C casts) unless a format says {@code roundf}, which
 *       rounds halves away from zero.</li>
 * </ul>
 * Subclasses encode and decode one block; the loops over blocks live here.
 */
abstract sealed class QuantCodec implements BlockCodec permits Q8_0Codec, Q5_0Codec, Q4_0Codec {
    /** Values per block (ggml's QK8_0 = QK5_0 = QK4_0 = 32). */
    static final int QK = 32;

    static final ValueLayout.OfShort LE_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    @Override
    public final int blockElems() {
        return QK;
    }

    @Override
    public final void encode(float[] src, int srcOff, MemorySegment dst, long dstOff, int n) {
        int bytes = blockBytes();
        for (int b = 0; b < n / QK; b++) {
            encodeBlock(src, srcOff + b * QK, dst, dstOff + (long) b * bytes);
        }
    }

    @Override
    public final void decode(MemorySegment src, long srcOff, float[] dst, int dstOff, int n) {
        int bytes = blockBytes();
        for (int b = 0; b < n / QK; b++) {
            decodeBlock(src, srcOff + (long) b * bytes, dst, dstOff + b * QK);
        }
    }

    /** Quantises {@code x[xo .. xo+32)} into the block at {@code dst[o ..]}. */
    abstract void encodeBlock(float[] x, int xo, MemorySegment dst, long o);

    /** Dequantises the block at {@code src[o ..]} into {@code y[yo .. yo+32)}. */
    abstract void decodeBlock(MemorySegment src, long o, float[] y, int yo);

    /** Stores the scale as fp16 at the start of the block. */
    static void putScale(MemorySegment dst, long o, float d) {
        dst.set(LE_SHORT, o, HalfFloats.toF16(d));
    }

    /** The stored fp16 scale, widened. */
    static float scale(MemorySegment src, long o) {
        return HalfFloats.f16ToFloat(src.get(LE_SHORT, o));
    }

    /**
     * The element of largest magnitude with its sign (the first one on ties), as ggml's Q4_0/Q5_0 find it:
     * {@code if (amax < fabsf(v)) { amax = fabsf(v); max = v; }}.
     */
    static float signedMax(float[] x, int xo) {
        float amax = 0;
        float max = 0;
        for (int j = 0; j < QK; j++) {
            float v = x[xo + j];
            if (amax < Math.abs(v)) {
                amax = Math.abs(v);
                max = v;
            }
        }
        return max;
    }

    /** {@code 1/d}, or 0 for a zero scale (an all-zero block then quantises to the zero point). */
    static float inverse(float d) {
        return d != 0 ? 1.0f / d : 0.0f;
    }

    /**
     * {@code MIN(top, (int8_t)(scaled + bias))}: the offset-binary code of Q4_0 (bias 8.5, top 15) and Q5_0
     * (bias 16.5, top 31). The sum lies in about [0.5, 2*bias], so truncation is rounding to nearest and the
     * clamp only bites on the element of opposite sign to the maximum that equals it in magnitude.
     */
    static int offsetCode(float scaled, float bias, int top) {
        return Math.min(top, (int) (scaled + bias));
    }

    /** C's {@code roundf}: nearest integer, halves away from zero (Math.round and Math.rint both differ). */
    static int roundHalfAway(float v) {
        // In double, |v| + 0.5 is exact for every float below 2^52, so floor cannot be pushed up by rounding.
        return (int) Math.copySign(Math.floor(Math.abs((double) v) + 0.5), v);
    }
}
