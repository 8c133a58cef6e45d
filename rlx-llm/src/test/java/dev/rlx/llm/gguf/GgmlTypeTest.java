package dev.rlx.llm.gguf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.HalfFloats;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The tensor types RLX reads: block geometry as ggml's, hand-computed type-1 blocks, round-trip bounds, and the
 * K-quants decoded against a float64 evaluation of blocks this test packs itself from random codes and scales.
 */
class GgmlTypeTest {
    @Test
    void geometry_matchesGgml() {
        int[][] want = {{0, 1, 4}, {1, 1, 2}, {2, 32, 18}, {3, 32, 20}, {6, 32, 22}, {7, 32, 24}, {8, 32, 34},
                {12, 256, 144}, {13, 256, 176}, {14, 256, 210}, {15, 256, 292}, {30, 1, 2}};
        for (int[] w : want) {
            GgmlType t = GgmlType.ofId(w[0]);
            assertEquals(w[1], t.blockElems(), t.name());
            assertEquals(w[2], t.blockBytes(), t.name());
        }
        assertEquals(null, GgmlType.ofId(9)); // Q8_1 is not read
        assertEquals(-1, GgmlType.Q4_K.bytesFor(32));
        assertEquals(-1, GgmlType.Q8_0.bytesFor(Long.MAX_VALUE / 32 * 32));
    }

    @Test
    void q4_1_handComputedBlock() {
        // x = 0..31 scaled by 0.5 plus 1: min = 1, max = 16.5, d = 15.5 / 15 = 1.0333..; fp16(d) = 0x3C22
        // (1.033203125), fp16(1) = 0x3C00. id is from the unrounded d: x_j = 1 + j/2, (x_j - 1) * id = j/2 * 15/15.5,
        // code = trunc(v + 0.5) clamped to 15.
        float[] x = new float[32];
        for (int j = 0; j < 32; j++) {
            x[j] = 1 + j * 0.5f;
        }
        byte[] b = encode(GgmlType.Q4_1, x);
        float d = 15.5f / 15;
        float id = 1 / d;
        StringBuilder qs = new StringBuilder();
        for (int j = 0; j < 16; j++) {
            int lo = Math.min(15, (int) ((x[j] - 1) * id + 0.5f));
            int hi = Math.min(15, (int) ((x[j + 16] - 1) * id + 0.5f));
            qs.append(String.format("%02x", lo | hi << 4));
        }
        assertEquals("223c003c" + qs, HexFormat.of().formatHex(b));
        // the first bytes spelled out: j=0 -> 0 | code(x16 = 9 -> 8*0.9677=7.74 -> 8) << 4 = 0x80
        assertEquals((byte) 0x80, b[4]);
        float[] y = decode(GgmlType.Q4_1, b, 32);
        assertEquals(1.0f, y[0]);
        assertEquals(8 * 1.033203125f + 1, y[16]);
    }

    @ParameterizedTest
    @EnumSource(value = GgmlType.class, names = {"Q4_1", "Q5_1", "BF16", "F16", "Q8_0", "Q4_0", "Q5_0", "F32"})
    void roundTrip_errorWithinBound(GgmlType t) {
        Random r = new Random(11);
        int n = 32 * 301;
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) (r.nextGaussian() * Math.exp(r.nextGaussian()) + (i / 32 % 3 == 0 ? 3 : 0));
        }
        byte[] bytes = encode(t, x);
        assertEquals(t.bytesFor(n), bytes.length);
        float[] y = decode(t, bytes, n);
        for (int b = 0; b < n / 32; b++) {
            double min = Double.MAX_VALUE;
            double max = -Double.MAX_VALUE;
            double amax = 0;
            for (int j = 0; j < 32; j++) {
                min = Math.min(min, x[b * 32 + j]);
                max = Math.max(max, x[b * 32 + j]);
                amax = Math.max(amax, Math.abs(x[b * 32 + j]));
            }
            for (int j = 0; j < 32; j++) {
                int i = b * 32 + j;
                // type 1: half a step, plus the fp16 rounding of d (relative 2^-11, times up to 31 steps) and of m
                double bound = switch (t) {
                    case F32 -> 0;
                    case F16 -> Math.max(Math.abs(x[i]) * 0x1p-11, 0x1p-25);
                    case BF16 -> Math.abs(x[i]) * 0x1p-8;
                    case Q4_1 -> (max - min) / 15 * (0.5 + 15 * 0x1p-11) + Math.abs(min) * 0x1p-11 + 1e-6 * amax;
                    case Q5_1 -> (max - min) / 31 * (0.5 + 31 * 0x1p-11) + Math.abs(min) * 0x1p-11 + 1e-6 * amax;
                    case Q8_0 -> amax / 127 * (0.5 + 127 * 0x1p-11) + 1e-6 * amax;
                    case Q5_0 -> amax / 16 * (1 + 16 * 0x1p-11) + 1e-6 * amax;
                    case Q4_0 -> amax / 8 * (1 + 8 * 0x1p-11) + 1e-6 * amax;
                    default -> throw new IllegalStateException();
                };
                assertTrue(Math.abs(y[i] - x[i]) <= bound, t + " element " + i + ": " + x[i] + " -> " + y[i]
                        + ", bound " + bound);
            }
        }
    }

    @Test
    void q5_1_highBitsInQh() {
        // a ramp over 0..31 steps: every code 0..31 appears once, so every qh bit pattern is exercised
        float[] x = new float[32];
        for (int j = 0; j < 32; j++) {
            x[j] = -2 + ((j * 7) % 32) * 0.25f;
        }
        byte[] b = encode(GgmlType.Q5_1, x);
        float d = HalfFloats.f16ToFloat((short) ((b[0] & 0xFF) | b[1] << 8));
        float m = HalfFloats.f16ToFloat((short) ((b[2] & 0xFF) | b[3] << 8));
        assertEquals(0.25f, d);
        assertEquals(-2f, m);
        int qh = ByteBuffer.wrap(b, 4, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        for (int j = 0; j < 32; j++) {
            int code = (j * 7) % 32;
            int nib = j < 16 ? b[8 + j] & 0x0F : (b[8 + j - 16] & 0xFF) >>> 4;
            assertEquals(code, nib | ((qh >>> j) & 1) << 4, "element " + j);
        }
        float[] y = decode(GgmlType.Q5_1, b, 32);
        assertArrayEquals(x, y);
    }

    /* ---------------- K-quants: blocks packed here from known codes ---------------- */

    @ParameterizedTest
    @EnumSource(value = GgmlType.class, names = {"Q4_K", "Q5_K", "Q6_K", "Q8_K"})
    void kQuants_decodeMatchFloat64OfPackedCodes(GgmlType t) {
        Random r = new Random(t.ordinal() * 31 + 5);
        int blocks = 7;
        ByteBuffer buf = ByteBuffer.allocate(blocks * t.blockBytes()).order(ByteOrder.LITTLE_ENDIAN);
        double[] want = new double[blocks * 256];
        for (int b = 0; b < blocks; b++) {
            int base = b * 256;
            int o = b * t.blockBytes();
            switch (t) {
                case Q4_K, Q5_K -> packQ45K(r, buf, o, want, base, t == GgmlType.Q5_K);
                case Q6_K -> packQ6K(r, buf, o, want, base);
                default -> packQ8K(r, buf, o, want, base);
            }
        }
        float[] y = decode(t, buf.array(), want.length);
        for (int i = 0; i < want.length; i++) {
            // the decoders compute d*sc (f32), times q, minus dmin*m: a few f32 roundings of values below 2^8 * d
            assertEquals(want[i], y[i], 1e-6 * Math.max(1, Math.abs(want[i])), t + " element " + i);
        }
    }

    private static float f16(ByteBuffer b, int o, double v) {
        short h = HalfFloats.toF16((float) v);
        b.putShort(o, h);
        return HalfFloats.f16ToFloat(h);
    }

    private static void packQ45K(Random r, ByteBuffer b, int o, double[] want, int base, boolean five) {
        float d = f16(b, o, 0.01 + r.nextDouble() * 0.05);
        float dmin = f16(b, o + 2, 0.01 + r.nextDouble() * 0.05);
        int[] sc = new int[8];
        int[] mn = new int[8];
        for (int j = 0; j < 8; j++) {
            sc[j] = r.nextInt(64);
            mn[j] = r.nextInt(64);
        }
        // get_scale_min_k4's inverse: j < 4 in the low 6 bits of bytes j and j+4; j >= 4 in the nibbles of byte
        // j+4 with their top two bits in the high bits of bytes j-4 (scale) and j (min)
        byte[] s = new byte[12];
        for (int j = 0; j < 4; j++) {
            s[j] = (byte) (sc[j] | (sc[j + 4] >>> 4) << 6);
            s[j + 4] = (byte) (mn[j] | (mn[j + 4] >>> 4) << 6);
            s[j + 8] = (byte) ((sc[j + 4] & 0xF) | (mn[j + 4] & 0xF) << 4);
        }
        for (int j = 0; j < 12; j++) {
            b.put(o + 4 + j, s[j]);
        }
        int qs = o + (five ? 48 : 16);
        int qh = o + 16;
        for (int g = 0; g < 4; g++) {
            for (int l = 0; l < 32; l++) {
                int lo = r.nextInt(five ? 32 : 16);
                int hi = r.nextInt(five ? 32 : 16);
                b.put(qs + 32 * g + l, (byte) ((lo & 0xF) | (hi & 0xF) << 4));
                if (five) {
                    int h = b.get(qh + l) & 0xFF;
                    h |= ((lo >>> 4) << (2 * g)) | ((hi >>> 4) << (2 * g + 1));
                    b.put(qh + l, (byte) h);
                }
                want[base + 64 * g + l] = (double) d * sc[2 * g] * lo - (double) dmin * mn[2 * g];
                want[base + 64 * g + 32 + l] = (double) d * sc[2 * g + 1] * hi - (double) dmin * mn[2 * g + 1];
            }
        }
    }

    private static void packQ6K(Random r, ByteBuffer b, int o, double[] want, int base) {
        float d = f16(b, o + 208, 0.001 + r.nextDouble() * 0.01);
        byte[] scales = new byte[16];
        for (int i = 0; i < 16; i++) {
            scales[i] = (byte) (r.nextInt(256) - 128);
            b.put(o + 192 + i, scales[i]);
        }
        // element e of 256: half h = e / 128, within it quarter k = (e % 128) / 32 and l = e % 32; its low nibble
        // is in ql[64h + l + 32(k & 1)] (low nibble for k < 2, high for k >= 2) and its top 2 bits in
        // qh[32h + l] at bit 2k; its scale is scales[8h + l/16 + 2k].
        for (int e = 0; e < 256; e++) {
            int h = e / 128;
            int k = (e % 128) / 32;
            int l = e % 32;
            int q = r.nextInt(64);
            int qlAt = o + 64 * h + l + 32 * (k & 1);
            int nib = q & 0xF;
            int cur = b.get(qlAt) & 0xFF;
            b.put(qlAt, (byte) (k < 2 ? cur | nib : cur | nib << 4));
            int qhAt = o + 128 + 32 * h + l;
            b.put(qhAt, (byte) ((b.get(qhAt) & 0xFF) | (q >>> 4) << (2 * k)));
            want[base + e] = (double) d * scales[8 * h + l / 16 + 2 * k] * (q - 32);
        }
    }

    private static void packQ8K(Random r, ByteBuffer b, int o, double[] want, int base) {
        float d = (float) (r.nextGaussian() * 0.01);
        b.putFloat(o, d);
        for (int j = 0; j < 256; j++) {
            byte q = (byte) (r.nextInt(256) - 128);
            b.put(o + 4 + j, q);
            want[base + j] = (double) d * q;
        }
    }

    @Test
    void kQuants_areReadOnly() {
        GgufFormatException e = assertThrows(GgufFormatException.class,
                () -> GgmlType.Q4_K.encode(new float[256], 0, MemorySegment.ofArray(new byte[144]), 0, 256));
        assertTrue(e.getMessage().contains("Q4_K"), e.getMessage());
    }

    @Test
    void decode_partialBlockOrOutOfRange_throwsTyped() {
        MemorySegment s = MemorySegment.ofArray(new byte[34]);
        assertThrows(GgufFormatException.class, () -> GgmlType.Q8_0.decode(s, 0, new float[16], 0, 16));
        assertThrows(GgufFormatException.class, () -> GgmlType.Q8_0.decode(s, 1, new float[32], 0, 32));
        assertThrows(GgufFormatException.class, () -> GgmlType.Q8_0.decode(s, 0, new float[32], 1, 32));
    }

    static byte[] encode(GgmlType t, float[] x) {
        byte[] b = new byte[(int) t.bytesFor(x.length)];
        t.encode(x, 0, MemorySegment.ofArray(b), 0, x.length);
        return b;
    }

    static float[] decode(GgmlType t, byte[] b, int n) {
        float[] y = new float[n];
        t.decode(MemorySegment.ofArray(b), 0, y, 0, n);
        return y;
    }
}
