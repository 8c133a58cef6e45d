package dev.rlx.ir.quant;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.rlx.ir.HalfFloats;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * ggml's K-quant super-blocks of 256 values, decoded as {@code dequantize_row_q*_K} in {@code ggml-quants.c}:
 * <ul>
 *   <li>{@code block_q4_K { fp16 d, dmin; uint8 scales[12]; uint8 qs[128]; }} (144 bytes): eight sub-blocks of
 *       32 with a 6-bit scale and a 6-bit min each (packed as {@link #scaleMin}); {@code x = d*sc*q - dmin*m}, the
 *       codes of each 64 values in the low then the high nibbles of 32 bytes;</li>
 *   <li>{@code block_q5_K} (176 bytes): Q4_K plus {@code qh[32]}, bit {@code 2i} / {@code 2i+1} of {@code qh[l]}
 *       giving bit 4 of the low / high nibble code of the i-th 64-value group;</li>
 *   <li>{@code block_q6_K { uint8 ql[128]; uint8 qh[64]; int8 scales[16]; fp16 d; }} (210 bytes): 6-bit codes
 *       minus 32 times {@code d * scales[i]} per 16 values;</li>
 *   <li>{@code block_q8_K { f32 d; int8 qs[256]; int16 bsums[16]; }} (292 bytes): {@code x = d * q}.</li>
 * </ul>
 */
final class KQuants {
    private KQuants() {}

    private static final int QK_K = 256;
    private static final ValueLayout.OfShort LE_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfFloat LE_FLOAT =
            ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    static void decode(WeightFormat t, MemorySegment src, long o, float[] y, int yo, int n) {
        for (int b = 0; b < n / QK_K; b++, o += t.blockBytes(), yo += QK_K) {
            switch (t) {
                case Q4_K, Q5_K -> q45K(src, o, y, yo, t == WeightFormat.Q5_K);
                case Q6_K -> q6K(src, o, y, yo);
                case Q8_K -> q8K(src, o, y, yo);
                default -> throw new IllegalStateException(t + " is not a K-quant");
            }
        }
    }

    private static int u8(MemorySegment s, long o) {
        return s.get(JAVA_BYTE, o) & 0xFF;
    }

    /** {@code get_scale_min_k4}: scale ({@code [0]}) and min ({@code [1]}) of sub-block {@code j} of 8. */
    static int scaleMin(MemorySegment s, long scales, int j, boolean min) {
        if (j < 4) {
            return u8(s, scales + j + (min ? 4 : 0)) & 63;
        }
        return min ? (u8(s, scales + j + 4) >>> 4) | ((u8(s, scales + j) >>> 6) << 4)
                : (u8(s, scales + j + 4) & 0xF) | ((u8(s, scales + j - 4) >>> 6) << 4);
    }

    private static void q45K(MemorySegment s, long o, float[] y, int yo, boolean five) {
        float d = HalfFloats.f16ToFloat(s.get(LE_SHORT, o));
        float dmin = HalfFloats.f16ToFloat(s.get(LE_SHORT, o + 2));
        long scales = o + 4;
        long qh = o + 16;
        long ql = five ? o + 48 : o + 16;
        for (int g = 0; g < 4; g++) {
            float d1 = d * scaleMin(s, scales, 2 * g, false);
            float m1 = dmin * scaleMin(s, scales, 2 * g, true);
            float d2 = d * scaleMin(s, scales, 2 * g + 1, false);
            float m2 = dmin * scaleMin(s, scales, 2 * g + 1, true);
            for (int l = 0; l < 32; l++) {
                int q = u8(s, ql + 32L * g + l);
                int h = five ? u8(s, qh + l) : 0;
                int lo = (q & 0xF) + (((h >>> (2 * g)) & 1) << 4);
                int hi = (q >>> 4) + (((h >>> (2 * g + 1)) & 1) << 4);
                y[yo + 64 * g + l] = d1 * lo - m1;
                y[yo + 64 * g + 32 + l] = d2 * hi - m2;
            }
        }
    }

    private static void q6K(MemorySegment s, long o, float[] y, int yo) {
        float d = HalfFloats.f16ToFloat(s.get(LE_SHORT, o + 208));
        for (int half = 0; half < 2; half++) {
            long ql = o + 64L * half;
            long qh = o + 128 + 32L * half;
            long sc = o + 192 + 8L * half;
            int base = yo + 128 * half;
            for (int l = 0; l < 32; l++) {
                int is = l / 16;
                int h = u8(s, qh + l);
                int a = u8(s, ql + l);
                int c = u8(s, ql + 32 + l);
                int q1 = ((a & 0xF) | ((h & 3) << 4)) - 32;
                int q2 = ((c & 0xF) | (((h >>> 2) & 3) << 4)) - 32;
                int q3 = ((a >>> 4) | (((h >>> 4) & 3) << 4)) - 32;
                int q4 = ((c >>> 4) | (((h >>> 6) & 3) << 4)) - 32;
                y[base + l] = d * s.get(JAVA_BYTE, sc + is) * q1;
                y[base + 32 + l] = d * s.get(JAVA_BYTE, sc + is + 2) * q2;
                y[base + 64 + l] = d * s.get(JAVA_BYTE, sc + is + 4) * q3;
                y[base + 96 + l] = d * s.get(JAVA_BYTE, sc + is + 6) * q4;
            }
        }
    }

    private static void q8K(MemorySegment s, long o, float[] y, int yo) {
        float d = s.get(LE_FLOAT, o);
        for (int j = 0; j < QK_K; j++) {
            y[yo + j] = d * s.get(JAVA_BYTE, o + 4 + j);
        }
    }
}
