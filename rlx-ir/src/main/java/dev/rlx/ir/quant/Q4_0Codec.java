package dev.rlx.ir.quant;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.MemorySegment;

/**
 * ggml {@code block_q4_0}: {@code { fp16 d; uint8 qs[16]; }}, 18 bytes. {@code d = max / -8} where
 * {@code max} is the signed element of largest magnitude; codes {@code q = min(15, trunc(x/d + 8.5))}; byte
 * {@code j} holds element {@code j} in its low nibble and element {@code j+16} in its high nibble;
 * {@code x = (q - 8) * d}.
 */
final class Q4_0Codec extends QuantCodec {
    private static final int HALF = QK / 2;

    @Override
    public int blockBytes() {
        return 2 + HALF;
    }

    @Override
    void encodeBlock(float[] x, int xo, MemorySegment dst, long o) {
        float d = signedMax(x, xo) / -8;
        float id = inverse(d);
        putScale(dst, o, d);
        for (int j = 0; j < HALF; j++) {
            int lo = offsetCode(x[xo + j] * id, 8.5f, 15);
            int hi = offsetCode(x[xo + HALF + j] * id, 8.5f, 15);
            dst.set(JAVA_BYTE, o + 2 + j, (byte) (lo | hi << 4));
        }
    }

    @Override
    void decodeBlock(MemorySegment src, long o, float[] y, int yo) {
        float d = scale(src, o);
        for (int j = 0; j < HALF; j++) {
            int q = src.get(JAVA_BYTE, o + 2 + j) & 0xFF;
            y[yo + j] = ((q & 0x0F) - 8) * d;
            y[yo + HALF + j] = ((q >>> 4) - 8) * d;
        }
    }
}
