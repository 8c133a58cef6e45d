package dev.rlx.ir.quant;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.MemorySegment;

/**
 * ggml {@code block_q8_0}: {@code { fp16 d; int8 qs[32]; }}, 34 bytes. {@code d = amax / 127},
 * {@code qs[j] = roundf(x[j] / d)} (halves away from zero), {@code x[j] = qs[j] * d}.
 */
final class Q8_0Codec extends QuantCodec {
    @Override
    public int blockBytes() {
        return 2 + QK;
    }

    @Override
    void encodeBlock(float[] x, int xo, MemorySegment dst, long o) {
        float amax = 0;
        for (int j = 0; j < QK; j++) {
            float a = Math.abs(x[xo + j]);
            amax = amax > a ? amax : a; // ggml's MAX(amax, fabsf(v))
        }
        float d = amax / 127;
        float id = inverse(d);
        putScale(dst, o, d);
        for (int j = 0; j < QK; j++) {
            dst.set(JAVA_BYTE, o + 2 + j, (byte) roundHalfAway(x[xo + j] * id));
        }
    }

    @Override
    void decodeBlock(MemorySegment src, long o, float[] y, int yo) {
        float d = scale(src, o);
        for (int j = 0; j < QK; j++) {
            y[yo + j] = src.get(JAVA_BYTE, o + 2 + j) * d;
        }
    }
}
