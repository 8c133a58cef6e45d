package dev.rlx.ir.quant;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The storage formats byte for byte: hand-computed blocks, golden bytes written by ggml's own reference
 * quantisers, and round-trip error bounds.
 */
class BlockFormatTest {
    /* ---------------- sizes ---------------- */

    @Test
    void blockBytes_matchGgml() {
        assertEquals(4, BlockFormat.F32.blockBytes());
        assertEquals(2, BlockFormat.F16.blockBytes());
        assertEquals(34, BlockFormat.Q8_0.blockBytes());
        assertEquals(22, BlockFormat.Q5_0.blockBytes());
        assertEquals(18, BlockFormat.Q4_0.blockBytes());
        assertEquals(32, BlockFormat.Q4_0.blockElems());
        assertEquals(1, BlockFormat.F16.blockElems());
        assertEquals(128 * 34 / 32, BlockFormat.Q8_0.bytesFor(128));
    }

    @Test
    void bytesFor_partialBlock_throws() {
        BlockFormatException e = assertThrows(BlockFormatException.class, () -> BlockFormat.Q4_0.bytesFor(24));
        assertTrue(e.getMessage().contains("Q4_0") && e.getMessage().contains("24"), e.getMessage());
        assertThrows(BlockFormatException.class, () -> BlockFormat.F32.bytesFor(-1));
        assertEquals(48, BlockFormat.F16.bytesFor(24));
    }

    @Test
    void quantized_onlyTheGgmlBlockFormats() {
        assertFalse(BlockFormat.F32.quantized());
        assertFalse(BlockFormat.F16.quantized());
        assertTrue(BlockFormat.Q8_0.quantized() && BlockFormat.Q5_0.quantized() && BlockFormat.Q4_0.quantized());
    }

    /* ---------------- hand-computed blocks ---------------- */

    @Test
    void q8_0_exactHalves_roundAwayFromZero() {
        // x = -127, then k + 0.5 for k = -15..15. amax = 127 so d = 1 (fp16 0x3C00, bytes 00 3C) and id = 1;
        // roundf sends -14.5 to -15 (0xF1), 0.5 to 1, 1.5 to 2, 14.5 to 15: halves away from zero. Math.rint
        // would give -14, 0, 2, 14 and Math.round -14, 1, 2, 15.
        float[] x = new float[32];
        x[0] = -127;
        for (int j = 1; j < 32; j++) {
            x[j] = j - 16 + 0.5f;
        }
        StringBuilder qs = new StringBuilder("81"); // -127
        for (int j = 1; j < 32; j++) {
            int k = j - 16; // x = k + 0.5 rounds to k + 1 when k >= 0, to k when k < 0
            qs.append(String.format("%02x", (byte) (k >= 0 ? k + 1 : k)));
        }
        assertEquals("003c" + qs, hex(encode(BlockFormat.Q8_0, x)));
        assertEquals("003c81f1f2f3f4f5f6f7f8f9fafbfcfdfeff0102030405060708090a0b0c0d0e0f10",
                hex(encode(BlockFormat.Q8_0, x)));
    }

    @Test
    void q8_0_decodesWithStoredF16Scale() {
        // amax = 1: d = 1/127 = 0.0078740157 in f32, stored as fp16 0x2008 = 2^-7 * (1 + 8/1024)
        // = 0.00787353515625 (bytes 08 20). x = 1 quantises to 127 and decodes to 127 * 0.00787353515625
        // = 0.99993896484375, not 1: decoding uses the rounded scale.
        float[] x = new float[32];
        x[3] = 1;
        x[4] = -0.5f; // -0.5 * 127 = -63.5 -> -64 (0xC0)
        byte[] b = encode(BlockFormat.Q8_0, x);
        assertEquals("0820", hex(b).substring(0, 4));
        assertEquals((byte) 127, b[2 + 3]);
        assertEquals((byte) -64, b[2 + 4]);
        float[] y = decode(BlockFormat.Q8_0, b, 32);
        assertEquals(0.99993896484375f, y[3]);
        assertEquals(-64 * 0.00787353515625f, y[4]);
    }

    @Test
    void q4_0_negativeMax_lowNibbleFirstHalf_clampsAt15() {
        // x[0..15] = -8..7; x[16..22] = 8, 0.49, 0.5, -0.5, -0.51, 7.4, -7.9; the rest 0.
        // The largest magnitude is 8, first reached by x[0] = -8 (x[16] = +8 ties and does not replace it), so
        // max = -8, d = max / -8 = 1 (fp16 00 3C), id = 1, code = min(15, trunc(x + 8.5)):
        //   x[j] = j - 8       -> j                       (low nibbles 0..15)
        //   x[16] = 8 -> 16.5  -> 16 -> clamped to 15      x[17] = 0.49 -> 8.99 -> 8
        //   x[18] = 0.5 -> 9                               x[19] = -0.5 -> 8.0 -> 8
        //   x[20] = -0.51 -> 7.99 -> 7                     x[21] = 7.4 -> 15.9 -> 15
        //   x[22] = -7.9 -> 0.6 -> 0                       x[23..31] = 0 -> 8
        // Byte j = code[j] | code[j + 16] << 4: F0 81 92 83 74 F5 06 87 88 89 8A 8B 8C 8D 8E 8F.
        float[] x = new float[32];
        for (int j = 0; j < 16; j++) {
            x[j] = j - 8;
        }
        float[] hi = {8, 0.49f, 0.5f, -0.5f, -0.51f, 7.4f, -7.9f};
        System.arraycopy(hi, 0, x, 16, hi.length);
        byte[] b = encode(BlockFormat.Q4_0, x);
        assertEquals("003c" + "f0819283" + "74f50687" + "88898a8b" + "8c8d8e8f", hex(b));
        float[] y = decode(BlockFormat.Q4_0, b, 32);
        assertEquals(7f, y[16]); // the clamped +8 comes back as (15 - 8) * 1
        assertEquals(-8f, y[0]);
        assertEquals(0f, y[17]);
    }

    @Test
    void q4_0_positiveMax_negativeScale() {
        // max = +4 (first of largest magnitude; -4 later ties): d = 4 / -8 = -0.5 (fp16 0xB800, bytes 00 B8),
        // id = -2. x = 4 -> -8 + 8.5 = 0.5 -> 0; x = -4 -> 16.5 -> 16 -> 15; x = 1 -> 6.5 -> 6; zeros -> 8.
        // Decoded: (0 - 8) * -0.5 = 4, (15 - 8) * -0.5 = -3.5, (6 - 8) * -0.5 = 1.
        float[] x = new float[32];
        x[0] = 4;
        x[1] = 1;
        x[16] = -4;
        byte[] b = encode(BlockFormat.Q4_0, x);
        assertEquals("00b8" + "f0" + "86" + "88".repeat(14), hex(b));
        float[] y = decode(BlockFormat.Q4_0, b, 32);
        assertEquals(4f, y[0]);
        assertEquals(1f, y[1]);
        assertEquals(-3.5f, y[16]);
    }

    @Test
    void q5_0_highBitsInLittleEndianMask() {
        // x[j] = j - 16 for j < 16 except x[3] = 0; x[16 + j] = j except x[31] = 16.
        // max = -16 (x[0]), d = 1 (00 3C), id = 1, code = min(31, trunc(x + 16.5)):
        //   x[j] = j - 16 -> j (bit 4 clear); x[3] = 0 -> 16 (low nibble 0, bit 4 set -> qh bit 3)
        //   x[16 + j] = j -> 16 + j (bit 4 set -> qh bits 16..31); x[31] = 16 -> 32 -> clamped to 31
        // qh = 0xFFFF0008, little-endian bytes 08 00 FF FF.
        // qs[j] = (code[j] & 15) | (code[j + 16] & 15) << 4 = j | j << 4, except qs[3] = 0 | 3 << 4 = 0x30.
        float[] x = new float[32];
        for (int j = 0; j < 16; j++) {
            x[j] = j - 16;
            x[16 + j] = j;
        }
        x[3] = 0;
        x[31] = 16;
        byte[] b = encode(BlockFormat.Q5_0, x);
        assertEquals("003c" + "0800ffff" + "001122" + "30" + "445566778899aabbccddeeff", hex(b));
        float[] y = decode(BlockFormat.Q5_0, b, 32);
        assertEquals(0f, y[3]);
        assertEquals(-16f, y[0]);
        assertEquals(15f, y[31]); // clamped
    }

    @Test
    void zeroBlock_encodesZeroPoint() {
        // d = 0 gives id = 0, so every x * id + bias is the bias: Q4_0 code 8 (0x88 per byte), Q5_0 code 16
        // (low nibbles 0, every qh bit set), Q8_0 code 0. Q4_0 and Q5_0 divide by a negative number, so their
        // scale is 0 / -8 = -0.0, fp16 0x8000 (bytes 00 80), as ggml writes it; Q8_0's 0 / 127 is +0.
        float[] x = new float[32];
        assertEquals("0080" + "88".repeat(16), hex(encode(BlockFormat.Q4_0, x)));
        assertEquals("0080" + "ffffffff" + "00".repeat(16), hex(encode(BlockFormat.Q5_0, x)));
        assertEquals("0000" + "00".repeat(32), hex(encode(BlockFormat.Q8_0, x)));
        for (BlockFormat s : new BlockFormat[] {BlockFormat.Q4_0, BlockFormat.Q5_0, BlockFormat.Q8_0}) {
            assertArrayEquals(new float[32], decode(s, encode(s, x), 32), 0f, s.name()); // -0.0 counts as 0
        }
    }

    @Test
    void f16_roundsToNearestEven() {
        // 1 -> 0x3C00; -2 -> 0xC000; 65504 (max) -> 0x7BFF; 1/3 -> 0x3555 (0.333251953125);
        // 1 + 2^-11 is halfway between 1 and 1 + 2^-10 and goes to the even one, 0x3C00;
        // 1 + 3 * 2^-11 is halfway between 0x3C01 and 0x3C02 and goes to 0x3C02.
        float[] x = {1, -2, 65504, 1f / 3, 1 + 0x1p-11f, 1 + 3 * 0x1p-11f};
        assertEquals("003c" + "00c0" + "ff7b" + "5535" + "003c" + "023c", hex(encode(BlockFormat.F16, x)));
    }

    /* ---------------- golden bytes from ggml ---------------- */

    /**
     * 64 blocks (see ggml/inputs.py: zeros, exact halves, clamp cases, normal values at scales 3e-8..1e4 so
     * some fp16 scales are subnormal, ties in the largest magnitude) quantised by ggml's
     * {@code quantize_row_q{8,5,4}_0_ref} and {@code ggml_compute_fp32_to_fp16} compiled from ggml-org/ggml
     * (src/ggml-quants.c, src/ggml-impl.h); the bytes were the same with {@code -ffp-contract=off} and with
     * {@code -march=native -ffp-contract=fast}.
     */
    @ParameterizedTest
    @EnumSource(value = BlockFormat.class, names = {"F16", "Q8_0", "Q5_0", "Q4_0"})
    void quantize_matchesGgmlReferenceBytes(BlockFormat s) throws IOException {
        float[] x = goldenInputs();
        byte[] expected = resource(s.name().toLowerCase() + ".bin");
        byte[] actual = encode(s, x);
        assertEquals(expected.length, actual.length);
        for (int b = 0; b < expected.length / s.blockBytes(); b++) {
            int from = b * s.blockBytes();
            assertEquals(hex(expected, from, s.blockBytes()), hex(actual, from, s.blockBytes()), s + " block " + b);
        }
    }

    /** Decoding the golden bytes gives ggml's {@code dequantize_row_*} formula, written out independently. */
    @ParameterizedTest
    @EnumSource(value = BlockFormat.class, names = {"Q8_0", "Q5_0", "Q4_0"})
    void dequantize_goldenBytes_matchesFormula(BlockFormat s) throws IOException {
        byte[] bytes = resource(s.name().toLowerCase() + ".bin");
        int blocks = bytes.length / s.blockBytes();
        float[] y = decode(s, bytes, blocks * 32);
        ByteBuffer bb = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        for (int b = 0; b < blocks; b++) {
            int o = b * s.blockBytes();
            float d = Float.float16ToFloat(bb.getShort(o));
            for (int j = 0; j < 32; j++) {
                int code = switch (s) {
                    case Q8_0 -> bytes[o + 2 + j];
                    case Q4_0 -> (j < 16 ? bytes[o + 2 + j] & 0xF : (bytes[o + 2 + j - 16] & 0xFF) >> 4) - 8;
                    case Q5_0 -> {
                        int nib = j < 16 ? bytes[o + 6 + j] & 0xF : (bytes[o + 6 + j - 16] & 0xFF) >> 4;
                        yield (nib | ((bb.getInt(o + 2) >>> j) & 1) << 4) - 16;
                    }
                    default -> throw new AssertionError(s);
                };
                assertEquals(code * d, y[b * 32 + j], s + " block " + b + " element " + j);
            }
        }
    }

    /* ---------------- round trip ---------------- */

    /**
     * Per element, |x - decode(encode(x))| is at most the rounding step plus what rounding the scale to fp16
     * costs the largest code: Q8_0 rounds to nearest (d/2) with |q| <= 127; Q4_0/Q5_0 round to nearest too,
     * but the element of opposite sign to the maximum that equals it in magnitude is clamped one step (d), with
     * |q - bias| <= 8 / 16. fp16 rounding moves d by at most 2^-11 relative. A 1e-6 relative slack covers the
     * f32 products. F16 is within 2^-11 relative in its normal range and 2^-25 absolute (half its smallest
     * subnormal step) below it; F32 is exact.
     */
    @ParameterizedTest
    @EnumSource(BlockFormat.class)
    void roundTrip_errorWithinBound(BlockFormat s) {
        Random r = new Random(7);
        float[] x = new float[32 * 500];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) (r.nextGaussian() * Math.exp(r.nextGaussian())); // scales vary block to block
        }
        float[] y = decode(s, encode(s, x), x.length);
        double worstRatio = 0;
        for (int b = 0; b < x.length / 32; b++) {
            double amax = 0;
            for (int j = 0; j < 32; j++) {
                amax = Math.max(amax, Math.abs(x[b * 32 + j]));
            }
            for (int j = 0; j < 32; j++) {
                int i = b * 32 + j;
                double bound = switch (s) {
                    case F32 -> 0;
                    case F16 -> Math.max(Math.abs(x[i]) * 0x1p-11, 0x1p-25);
                    case Q8_0 -> amax / 127 * (0.5 + 127 * 0x1p-11);
                    case Q5_0 -> amax / 16 * (1 + 16 * 0x1p-11);
                    case Q4_0 -> amax / 8 * (1 + 8 * 0x1p-11);
                };
                bound = bound * (1 + 1e-6) + 1e-30;
                double err = Math.abs(x[i] - y[i]);
                assertTrue(err <= bound, s + " element " + i + ": |" + x[i] + " - " + y[i] + "| > " + bound);
                worstRatio = Math.max(worstRatio, bound == 1e-30 ? 0 : err / bound);
            }
        }
        assertTrue(s == BlockFormat.F32 || worstRatio > 0.3, "bound is not tight: " + worstRatio);
    }

    @ParameterizedTest
    @EnumSource(value = BlockFormat.class, names = {"Q8_0", "Q5_0", "Q4_0"})
    void roundTrip_cosineSimilarity(BlockFormat s) {
        // [L] reference thresholds: Q8_0 > 0.999, Q4_0 > 0.99, Q5_0 no worse than Q4_0.
        Random r = new Random(11);
        float[] x = new float[32 * 256];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) r.nextGaussian();
        }
        float[] y = decode(s, encode(s, x), x.length);
        double dot = 0;
        double xx = 0;
        double yy = 0;
        for (int i = 0; i < x.length; i++) {
            dot += (double) x[i] * y[i];
            xx += (double) x[i] * x[i];
            yy += (double) y[i] * y[i];
        }
        double cos = dot / Math.sqrt(xx * yy);
        assertTrue(cos > (s == BlockFormat.Q8_0 ? 0.9999 : s == BlockFormat.Q5_0 ? 0.998 : 0.99), s + " cosine " + cos);
    }

    /* ---------------- argument checks ---------------- */

    @Test
    void encode_segmentTooSmall_throws() {
        MemorySegment seg = MemorySegment.ofArray(new byte[33]);
        BlockFormatException e = assertThrows(BlockFormatException.class,
                () -> BlockFormat.Q8_0.encode(new float[32], 0, seg, 0, 32));
        assertTrue(e.getMessage().contains("33 bytes"), e.getMessage());
        assertThrows(BlockFormatException.class, () -> BlockFormat.Q8_0.encode(new float[31], 0,
                MemorySegment.ofArray(new byte[34]), 0, 32));
        assertThrows(BlockFormatException.class, () -> BlockFormat.Q4_0.decode(MemorySegment.ofArray(new byte[18]),
                0, new float[32], 0, 16));
        assertThrows(BlockFormatException.class, () -> BlockFormat.F16.decode(MemorySegment.ofArray(new byte[8]),
                2, new float[4], 0, 4)); // 8 bytes from offset 2 overrun a 8-byte segment
        assertThrows(BlockFormatException.class, () -> BlockFormat.F32.encode(new float[4], -1,
                MemorySegment.ofArray(new byte[16]), 0, 1));
    }

    /* ---------------- helpers ---------------- */

    static byte[] encode(BlockFormat s, float[] x) {
        byte[] out = new byte[(int) s.bytesFor(x.length)];
        s.encode(x, 0, MemorySegment.ofArray(out), 0, x.length);
        return out;
    }

    static float[] decode(BlockFormat s, byte[] bytes, int n) {
        float[] y = new float[n];
        s.decode(MemorySegment.ofArray(bytes), 0, y, 0, n);
        return y;
    }

    private static float[] goldenInputs() throws IOException {
        byte[] raw = resource("inputs.f32");
        float[] x = new float[raw.length / 4];
        ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(x);
        return x;
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = BlockFormatTest.class.getResourceAsStream("ggml/" + name)) {
            if (in == null) {
                throw new IOException("missing test resource ggml/" + name);
            }
            return in.readAllBytes();
        }
    }

    private static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    private static String hex(byte[] b, int from, int n) {
        return HexFormat.of().formatHex(b, from, from + n);
    }
}
