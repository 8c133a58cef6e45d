package dev.rlx.ir.quant;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.MemorySegment;

/**
 * ggml {@code block_q5_0}: {@code { fp16 d; uint8 qh[4]; uint8 qs[16]; }}, 22 bytes. {@code d = max / -16}
 * ({@code max} signed, as Q4_0); codes {@code q = min(31, trunc(x/d + 16.5))}; the low four bits are packed as
 * Q4_0's nibbles, and bit 4 of element {@code j} is bit {@code j} of the little-endian {@code qh};
 * {@code x = (q - 16) * d}.
 */
final class Q5_0Codec extends QuantCodec {
    private static final int HALF = QK / 2;

    @Override
    public int blockBytes() {
        return 2 + 4 + HALF;
    }

    @Override
    void encodeBlock(float[] x, int xo, MemorySegment dst, long o) {
        float d = signedMax(x, xo) / -16;
        float id = inverse(d);
        putScale(dst, o, d);
        int qh = 0;
        for (int j = 0; j < HALF; j++) {
            int lo = offsetCode(x[xo + j] * id, 16.5f, 31);
            int hi = offsetCode(x[xo + HALF + j] * id, 16.5f, 31);
            dst.set(JAVA_BYTE, o + 6 + j, (byte) ((lo & 0x0F) | (hi & 0x0F) << 4));
            qh |= ((lo >>> 4) & 1) << j;
            qh |= ((hi >>> 4) & 1) << (j + HALF);
        }
        dst.set(LE_INT, o + 2, qh);
    }

    @Override
    void decodeBlock(MemorySegment src, long o, float[] y, int yo) {
        float d = scale(src, o);
        int qh = src.get(LE_INT, o + 2);
        for (int j = 0; j < HALF; j++) {
            int q = src.get(JAVA_BYTE, o + 6 + j) & 0xFF;
            int lo = (q & 0x0F) | ((qh >>> j) & 1) << 4;
            int hi = (q >>> 4) | ((qh >>> (j + HALF)) & 1) << 4;
            y[yo + j] = (lo - 16) * d;
            y[yo + HALF + j] = (hi - 16) * d;
        }
    }
}
