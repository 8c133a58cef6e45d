package dev.rlx.cpu.kernels;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * Q4_K, Q5_K and Q6_K rows (ggml's 256-value super-blocks, layouts in {@code dev.rlx.ir.quant.KQuants}) decoded into
 * native floats with the Vector API, for {@link QuantMatMulKernel}'s float dot: the codes of {@code L} values
 * are widened from bytes to int lanes, split into nibbles and high bits there, and scaled with the same two
 * float roundings as the reference decoder, so every decoded value equals {@code WeightFormat.decode}'s bit for
 * bit. (The reference decoder, one value at a time, made a Q4_K matmul about 6x slower than Q8_0's.)
 */
final class KQuantRows {
    private KQuantRows() {}

    private static final VectorSpecies<Float> F = VectorMath.F;
    private static final int L = F.length();
    private static final VectorSpecies<Byte> B = ByteVector.SPECIES_PREFERRED.withShape(VectorShape.forBitSize(L * 8));
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final ValueLayout.OfShort LE_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(LE);
    private static final int QK = 256;
    static final int Q4_K_BYTES = 144;
    static final int Q5_K_BYTES = 176;
    static final int Q6_K_BYTES = 210;

    /** Bytes {@code [at, at + L)} as int lanes (sign-extended: callers mask). */
    private static IntVector bytes(MemorySegment s, long at) {
        return (IntVector) ByteVector.fromMemorySegment(B, s, at, LE).convertShape(VectorOperators.B2I, I, 0);
    }

    private static FloatVector floats(IntVector v) {
        return (FloatVector) v.convertShape(VectorOperators.I2F, F, 0);
    }

    private static int u8(MemorySegment s, long at) {
        return s.get(ValueLayout.JAVA_BYTE, at) & 0xFF;
    }

    /** {@code get_scale_min_k4}: the 6-bit scale (or min) of sub-block {@code j} of 8. */
    private static int scaleMin(MemorySegment s, long scales, int j, boolean min) {
        if (j < 4) {
            return u8(s, scales + j + (min ? 4 : 0)) & 63;
        }
        return min ? (u8(s, scales + j + 4) >>> 4) | ((u8(s, scales + j) >>> 6) << 4)
                : (u8(s, scales + j + 4) & 0xF) | ((u8(s, scales + j - 4) >>> 6) << 4);
    }

    /**
     * {@code k} values (a multiple of 256) of Q4_K ({@code five} false) or Q5_K blocks at {@code wo} into floats
     * at byte 0 of {@code row}.
     */
    static void q45K(MemorySegment w, long wo, MemorySegment row, int k, boolean five) {
        int blockBytes = five ? Q5_K_BYTES : Q4_K_BYTES;
        for (int sb = 0; sb < k / QK; sb++) {
            long o = wo + (long) blockBytes * sb;
            float d = Float.float16ToFloat(w.get(LE_SHORT, o));
            float dmin = Float.float16ToFloat(w.get(LE_SHORT, o + 2));
            long scales = o + 4;
            long qh = o + 16;
            long ql = five ? o + 48 : o + 16;
            long out = 4L * QK * sb;
            for (int g = 0; g < 4; g++) {
                float d1 = d * scaleMin(w, scales, 2 * g, false);
                float m1 = dmin * scaleMin(w, scales, 2 * g, true);
                float d2 = d * scaleMin(w, scales, 2 * g + 1, false);
                float m2 = dmin * scaleMin(w, scales, 2 * g + 1, true);
                for (int l = 0; l < 32; l += L) {
                    for (int n = 0; n < 2; n++) { // one call site, so C2 inlines the vector code once
                        q45Lanes(w, ql + 32L * g + l, five ? qh + l : -1, 2 * g + n, n, n == 0 ? d1 : d2,
                                n == 0 ? m1 : m2, row, out + 4L * (64 * g + 32 * n + l));
                    }
                }
            }
        }
    }

    /**
     * L values of a 64-value group, from the low ({@code nibble} 0) or high nibbles of the bytes at {@code at}:
     * {@code d * q - m}, the reference's two roundings (no FMA). For Q5_K ({@code qh >= 0}) bit {@code bit} of
     * {@code qh[l]} is bit 4 of the code. One vector per call and no vector parameter: larger methods outgrew C2's
     * inlining budget and boxed.
     */
    private static void q45Lanes(MemorySegment w, long at, long qh, int bit, int nibble, float d, float m,
                                 MemorySegment row, long out) {
        IntVector q = bytes(w, at).lanewise(VectorOperators.LSHR, 4 * nibble).and(0xF);
        if (qh >= 0) {
            q = q.or(bytes(w, qh).lanewise(VectorOperators.LSHR, bit).and(1).lanewise(VectorOperators.LSHL, 4));
        }
        FloatVector.broadcast(F, d).mul(floats(q)).sub(m).intoMemorySegment(row, out, LE);
    }

    /** {@code k} values (a multiple of 256) of Q6_K blocks at {@code wo} into floats at byte 0 of {@code row}. */
    static void q6K(MemorySegment w, long wo, MemorySegment row, int k) {
        for (int sb = 0; sb < k / QK; sb++) {
            long o = wo + (long) Q6_K_BYTES * sb;
            float d = Float.float16ToFloat(w.get(LE_SHORT, o + 208));
            for (int half = 0; half < 2; half++) {
                long ql = o + 64L * half;
                long qh = o + 128 + 32L * half;
                long sc = o + 192 + 8L * half;
                long out = 4L * (QK * sb + 128 * half);
                for (int l = 0; l < 32; l += L) {
                    int is = l / 16; // one scale per 16 values; a vector never spans two
                    // value 32 i + l takes the low (i < 2) or high nibble of ql[l] (i even) or ql[32 + l] (i odd),
                    // and bits 2i, 2i + 1 of qh[l]; one call site, so C2 inlines the vector code once
                    for (int i = 0; i < 4; i++) {
                        q6Lanes(w, ql + 32L * (i & 1) + l, 4 * (i >> 1), qh + l, 2 * i,
                                d * w.get(ValueLayout.JAVA_BYTE, sc + is + 2L * i), row, out + 4L * (32 * i + l));
                    }
                }
            }
        }
    }

    /**
     * L values of a Q6_K block: {@code ((ql >> lowShift) & 15 | ((qh >> highShift) & 3) << 4) - 32} times
     * {@code scale} (= d * the group's scale: the reference's order of roundings). One small method per vector,
     * with no vector parameter: the whole block in one method outgrew C2's inlining budget and boxed.
     */
    private static void q6Lanes(MemorySegment w, long ql, int lowShift, long qh, int highShift, float scale,
                                MemorySegment row, long out) {
        IntVector low = bytes(w, ql).lanewise(VectorOperators.LSHR, lowShift).and(0xF);
        IntVector high = bytes(w, qh).lanewise(VectorOperators.LSHR, highShift).and(3);
        FloatVector.broadcast(F, scale).mul(floats(low.or(high.lanewise(VectorOperators.LSHL, 4)).sub(32)))
                .intoMemorySegment(row, out, LE);
    }
}
