package dev.rlx.ir.quant;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.rlx.ir.HalfFloats;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * bfloat16 and ggml's "type 1" blocks, whose 32 values share a scale {@code d} and a minimum {@code m} (both fp16):
 * {@code x = q * d + m}. {@code block_q4_1 { d; m; qs[16]; }} (20 bytes) packs element {@code j} in the low nibble
 * of byte {@code j} and element {@code j+16} in its high nibble; {@code block_q5_1 { d; m; qh[4]; qs[16]; }} (24
 * bytes) adds bit 4 of element {@code j} as bit {@code j} of the little-endian {@code qh}. Encoding follows
 * {@code quantize_row_q4_1_ref}/{@code q5_1_ref}: {@code d = (max - min) / (2^bits - 1)}, {@code id = 1/d} (0 for
 * d = 0) from the unrounded f32 {@code d}, codes {@code trunc((x - min) * id + 0.5)} (Q4_1 clamped to 15).
 */
final class LinearQuants {
    private LinearQuants() {}

    private static final int QK = 32;
    private static final ValueLayout.OfShort LE_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    static void decodeBf16(MemorySegment src, long o, float[] dst, int dstOff, int n) {
        for (int i = 0; i < n; i++) {
            dst[dstOff + i] = HalfFloats.bf16ToFloat(src.get(LE_SHORT, o + 2L * i));
        }
    }

    static void encodeBf16(float[] src, int srcOff, MemorySegment dst, long o, int n) {
        for (int i = 0; i < n; i++) {
            dst.set(LE_SHORT, o + 2L * i, HalfFloats.toBF16(src[srcOff + i]));
        }
    }

    static void decode(WeightFormat t, MemorySegment src, long o, float[] y, int yo, int n) {
        boolean five = t == WeightFormat.Q5_1;
        int qsOff = five ? 8 : 4;
        for (int b = 0; b < n / QK; b++, o += t.blockBytes(), yo += QK) {
            float d = HalfFloats.f16ToFloat(src.get(LE_SHORT, o));
            float m = HalfFloats.f16ToFloat(src.get(LE_SHORT, o + 2));
            int qh = five ? src.get(LE_INT, o + 4) : 0;
            for (int j = 0; j < QK / 2; j++) {
                int q = src.get(JAVA_BYTE, o + qsOff + j) & 0xFF;
                int lo = (q & 0x0F) | ((qh >>> j) & 1) << 4;
                int hi = (q >>> 4) | ((qh >>> (j + QK / 2)) & 1) << 4;
                y[yo + j] = lo * d + m;
                y[yo + QK / 2 + j] = hi * d + m;
            }
        }
    }

    static void encode(WeightFormat t, float[] x, int xo, MemorySegment dst, long o, int n) {
        boolean five = t == WeightFormat.Q5_1;
        int qsOff = five ? 8 : 4;
        for (int b = 0; b < n / QK; b++, o += t.blockBytes(), xo += QK) {
            float min = Float.MAX_VALUE;
            float max = -Float.MAX_VALUE;
            for (int j = 0; j < QK; j++) {
                min = Math.min(min, x[xo + j]);
                max = Math.max(max, x[xo + j]);
            }
            float d = (max - min) / (five ? 31 : 15);
            float id = d != 0 ? 1.0f / d : 0.0f;
            dst.set(LE_SHORT, o, HalfFloats.toF16(d));
            dst.set(LE_SHORT, o + 2, HalfFloats.toF16(min));
            int qh = 0;
            for (int j = 0; j < QK / 2; j++) {
                int lo = code((x[xo + j] - min) * id, five);
                int hi = code((x[xo + QK / 2 + j] - min) * id, five);
                dst.set(JAVA_BYTE, o + qsOff + j, (byte) ((lo & 0x0F) | (hi & 0x0F) << 4));
                qh |= ((lo >>> 4) & 1) << j;
                qh |= ((hi >>> 4) & 1) << (j + QK / 2);
            }
            if (five) {
                dst.set(LE_INT, o + 4, qh);
            }
        }
    }

    /** Q4_1: {@code MIN(15, (int8_t)(v + 0.5f))}; Q5_1: {@code (uint8_t)(v + 0.5f)}; v is in [0, 2^bits - 1]. */
    private static int code(float v, boolean five) {
        int q = (int) (v + 0.5f);
        return five ? q & 0xFF : Math.min(15, q);
    }
}
