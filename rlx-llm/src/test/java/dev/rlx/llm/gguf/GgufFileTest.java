package dev.rlx.llm.gguf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.rlx.ir.RlxException;
import dev.rlx.ir.limits.LimitExceededException;
import dev.rlx.ir.limits.Limits;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * GGUF files written by {@link GgufWriter} and read back, and malformed images: each broken field gives a
 * {@link GgufFormatException} with its byte offset, and random corruption never gives anything but an
 * {@link RlxException}.
 */
class GgufFileTest {
    private static final Limits LIMITS = Limits.defaults();

    static GgufWriter allTypesWriter() {
        GgufWriter w = new GgufWriter();
        w.putString("general.architecture", "llama");
        w.put("u8", new GgufValue(GgufValueType.UINT8, 200L));
        w.put("i8", new GgufValue(GgufValueType.INT8, -100L));
        w.put("u16", new GgufValue(GgufValueType.UINT16, 60000L));
        w.put("i16", new GgufValue(GgufValueType.INT16, -30000L));
        w.putU32("u32", 4_000_000_000L);
        w.put("i32", GgufValue.ofI32(-2_000_000_000));
        w.putF32("f32", 1.5e-3f);
        w.putBool("bool", true);
        w.putString("string", "héllo 世界 🙂");
        w.put("u64", GgufValue.ofU64(-1L)); // 2^64 - 1
        w.put("i64", new GgufValue(GgufValueType.INT64, Long.MIN_VALUE));
        w.put("f64", new GgufValue(GgufValueType.FLOAT64, Math.PI));
        w.putArray("a.u8", GgufArray.of(GgufValueType.UINT8, new byte[] {1, (byte) 255}));
        w.putArray("a.i16", GgufArray.of(GgufValueType.INT16, new short[] {-1, 7}));
        w.putArray("a.u32", GgufArray.of(GgufValueType.UINT32, new int[] {-1, 3}));
        w.putArray("a.i64", GgufArray.of(GgufValueType.INT64, new long[] {5, -6}));
        w.putArray("a.f32", GgufArray.ofFloats(0.5f, -2f));
        w.putArray("a.f64", GgufArray.of(GgufValueType.FLOAT64, new double[] {1e300}));
        w.putArray("a.bool", GgufArray.of(GgufValueType.BOOL, new boolean[] {true, false}));
        w.putArray("a.str", GgufArray.ofStrings("a", "", "ü"));
        w.putArray("a.nested", GgufArray.of(GgufValueType.ARRAY,
                new GgufArray[] {GgufArray.ofInts(1, 2), GgufArray.ofStrings("x")}));
        w.putArray("a.empty", GgufArray.ofInts());
        return w;
    }

    static float[] random(Random r, int n) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) r.nextGaussian();
        }
        return x;
    }

    @Test
    void roundTrip_everyMetadataTypeAndEncodableTensorType(@TempDir Path dir) throws Exception {
        GgufWriter w = allTypesWriter();
        Random r = new Random(3);
        GgmlType[] types = {GgmlType.F32, GgmlType.F16, GgmlType.BF16, GgmlType.Q8_0, GgmlType.Q4_0,
                GgmlType.Q4_1, GgmlType.Q5_0, GgmlType.Q5_1};
        float[][] data = new float[types.length][];
        for (int i = 0; i < types.length; i++) {
            data[i] = random(r, 64 * 3);
            w.addTensor("t." + types[i], types[i], new long[] {64, 3}, data[i]);
        }
        w.addTensor("scalar", GgmlType.F32, new long[] {}, new float[] {42});
        w.addTensor("empty", GgmlType.F32, new long[] {0, 4}, new float[0]);
        Path p = dir.resolve("m.gguf");
        long bytes = w.write(p);
        assertEquals(bytes, Files.size(p));
        assertArrayEquals(w.toBytes(), Files.readAllBytes(p));

        try (GgufFile f = GgufFile.open(p)) {
            assertEquals(3, f.version());
            assertEquals(32, f.alignment());
            assertEquals(0, f.dataStart() % 32);
            GgufMetadata m = f.metadata();
            GgufMetadata want = new GgufMetadata(allTypesWriter().metadataForTest());
            assertEquals(want.asMap(), m.asMap());
            assertEquals(200, m.getLong("u8"));
            assertEquals(-100, m.getLong("i8"));
            assertEquals(60000, m.getLong("u16"));
            assertEquals(4_000_000_000L, m.getLong("u32"));
            assertEquals(1.5e-3f, (float) m.getDouble("f32"));
            assertEquals("héllo 世界 🙂", m.getString("string"));
            assertThrows(GgufFormatException.class, () -> m.getLong("u64")); // above Long.MAX_VALUE
            assertEquals(255, m.getArray("a.u8").getLong(1));
            assertEquals(0xFFFF_FFFFL, m.getArray("a.u32").getLong(0));
            assertArrayEquals(new String[] {"a", "", "ü"}, m.getArray("a.str").asStrings());
            assertEquals(GgufArray.ofStrings("x"), ((GgufArray[]) m.getArray("a.nested").values())[1]);
            GgufFormatException e = assertThrows(GgufFormatException.class, () -> m.getString("u8"));
            assertTrue(e.getMessage().contains("'u8'") && e.getMessage().contains("UINT8"), e.getMessage());

            for (int i = 0; i < types.length; i++) {
                GgufTensor t = f.tensor("t." + types[i]);
                assertEquals(types[i], t.type());
                assertArrayEquals(new long[] {64, 3}, t.dims());
                assertEquals(0, t.offset() % 32);
                float[] expect = GgmlTypeTest.decode(types[i], GgmlTypeTest.encode(types[i], data[i]), 192);
                assertArrayEquals(expect, t.toFloats(), types[i].name());
                float[] row = new float[64];
                t.decodeRows(2, 1, row, 0);
                assertArrayEquals(java.util.Arrays.copyOfRange(expect, 128, 192), row);
            }
            assertArrayEquals(new float[] {42}, f.tensor("scalar").toFloats());
            assertEquals(0, f.tensor("empty").elementCount());
            assertThrows(GgufFormatException.class, () -> f.tensor("nope"));
        }
    }

    @Test
    void version2_andCustomAlignment() {
        GgufWriter w = new GgufWriter().version(2);
        w.putU32("general.alignment", 64);
        w.addTensor("a", GgmlType.F32, new long[] {3}, new float[] {1, 2, 3});
        w.addTensor("b", GgmlType.F32, new long[] {5}, new float[] {1, 2, 3, 4, 5});
        GgufFile f = parse(w.toBytes());
        assertEquals(2, f.version());
        assertEquals(64, f.alignment());
        assertEquals(64, f.tensor("b").offset());
        assertEquals(0, f.dataStart() % 64);
        assertArrayEquals(new float[] {1, 2, 3, 4, 5}, f.tensor("b").toFloats());
    }

    /* ---------------- malformed images ---------------- */

    private static GgufFile parse(byte[] b) {
        return GgufFile.parse(MemorySegment.ofArray(b), "test.gguf", LIMITS);
    }

    private static GgufFormatException fails(byte[] b, String... fragments) {
        GgufFormatException e = assertThrows(GgufFormatException.class, () -> parse(b));
        for (String s : fragments) {
            assertTrue(e.getMessage().contains(s), "'" + s + "' not in: " + e.getMessage());
        }
        return e;
    }

    /**
     * A header by hand: magic, version, tensor count, kv count, then {@code rest} and 64 zero bytes (so the
     * counts' minimum sizes fit and the reader gets to the field under test).
     */
    private static byte[] image(int version, long tensors, long kvs, byte[] rest) {
        ByteBuffer b = ByteBuffer.allocate(24 + rest.length + 64).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(GgufReader.MAGIC).putInt(version).putLong(tensors).putLong(kvs).put(rest);
        return b.array();
    }

    private static byte[] le(Object... parts) {
        ByteBuffer b = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
        for (Object p : parts) {
            switch (p) {
                case Integer i -> b.putInt(i);
                case Long l -> b.putLong(l);
                case Byte x -> b.put(x);
                case String s -> {
                    byte[] u = s.getBytes(StandardCharsets.UTF_8);
                    b.putLong(u.length).put(u);
                }
                case byte[] raw -> b.put(raw);
                default -> throw new IllegalArgumentException();
            }
        }
        byte[] out = new byte[b.position()];
        b.flip().get(out);
        return out;
    }

    @Test
    void badMagicVersionAndEndianness() {
        byte[] ok = image(3, 0, 0, new byte[0]);
        assertEquals(0, parse(ok).tensors().size());
        byte[] magic = ok.clone();
        magic[0] = 'X';
        assertEquals(0, fails(magic, "magic").offset());
        assertEquals(4, fails(image(1, 0, 0, new byte[0]), "version 1").offset());
        assertEquals(4, fails(image(Integer.reverseBytes(3), 0, 0, new byte[0]), "big-endian").offset());
        fails(image(4, 0, 0, new byte[0]), "version 4");
        assertEquals(0, fails(new byte[10], "too short").offset());
    }

    @Test
    void countsBeyondTheFile_failBeforeAllocating() {
        assertEquals(8, fails(image(3, 1L << 40, 0, new byte[0]), "tensor count").offset());
        assertEquals(16, fails(image(3, 0, -1L, new byte[0]), "metadata key count", "18446744073709551615")
                .offset());
        // an array claiming 2^31 uint32 elements in a few bytes
        byte[] arr = image(3, 0, 1, le("k", 9, 4, 1L << 31, 0));
        GgufFormatException e = fails(arr, "element count");
        assertEquals(24 + 8 + 1 + 4 + 4, e.offset());
        // a string length past the end
        fails(image(3, 0, 1, le(5000L, (byte) 'a')), "metadata key 0 length 5000");
        fails(java.util.Arrays.copyOf(image(3, 1, 0, new byte[0]), 30), "tensor count 1 needs at least 24 bytes");
    }

    @Test
    void fieldErrors_nameTheFieldAndOffset() {
        fails(image(3, 0, 1, le("k", 13, 0)), "type of metadata 'k' is 13");
        fails(image(3, 0, 2, le("k", 4, 1, "k", 4, 2)), "'k' appears twice");
        fails(image(3, 0, 1, le("", 4, 1)), "is empty");
        fails(image(3, 0, 1, le("b", 7, (byte) 2)), "BOOL of value 2");
        fails(image(3, 0, 1, le(2L, new byte[] {(byte) 0xC3, 0x28}, 4, 0)), "not valid UTF-8");
        fails(image(3, 0, 1, le("general.alignment", 4, 24)), "power of two");
        fails(image(3, 0, 1, le("general.alignment", 5, 32)), "UINT32");
        // tensor infos: 5 dims, unknown type, partial block, misaligned offset, data past the end
        fails(image(3, 1, 0, le("t", 5)), "5 dimensions");
        fails(image(3, 1, 0, le("t", 1, 4L, 9, 0L)), "type id 9");
        fails(image(3, 1, 0, le("t", 1, 16L, 8, 0L)), "not a whole number of Q8_0 blocks");
        fails(image(3, 1, 0, le("t", 1, 4L, 0, 8L)), "not a multiple of the alignment 32");
        fails(image(3, 1, 0, le("t", 1, 4L, 0, 1024L)), "lies outside the data section");
        fails(image(3, 1, 0, le("t", 2, -1L, 1L, 0, 0L)), "dimension 0 is 18446744073709551615");
        fails(image(3, 1, 0, le("t", 2, 1L << 40, 1L << 40, 0, 0L)), "more than 2^63");
        fails(image(3, 2, 0, le("t", 1, 4L, 0, 0L, "t", 1, 4L, 0, 0L)), "'t' appears twice");
        byte[] overlap = image(3, 2, 0, le("a", 1, 16L, 0, 0L, "b", 1, 16L, 0, 32L, new byte[200]));
        fails(overlap, "overlap");
        byte[] nested = image(3, 0, 1, le("k", 9, 9, 1L, 9, 1L, 9, 1L, 4, 0L));
        fails(nested, "nests arrays deeper");
    }

    @Test
    void limits_boundTensorCountAndSizes() {
        GgufWriter w = new GgufWriter();
        w.addTensor("a", GgmlType.F32, new long[] {8}, new float[8]);
        w.addTensor("b", GgmlType.F32, new long[] {8}, new float[8]);
        byte[] b = w.toBytes();
        LimitExceededException e = assertThrows(LimitExceededException.class, () -> GgufFile.parse(
                MemorySegment.ofArray(b), "x", Limits.builder().tensorCount(1).build()));
        assertEquals(Limits.Kind.TENSOR_COUNT, e.kind());
        e = assertThrows(LimitExceededException.class, () -> GgufFile.parse(MemorySegment.ofArray(b), "x",
                Limits.builder().tensorBytes(16).build()));
        assertTrue(e.getMessage().contains("tensor 'a'"), e.getMessage());
        assertEquals(Limits.Kind.HEADER_BYTES, assertThrows(LimitExceededException.class, () -> GgufFile.parse(
                MemorySegment.ofArray(b), "x", Limits.builder().headerBytes(40).build())).kind());
    }

    /**
     * Every truncation of a valid file and 3000 seeded random corruptions (1 to 8 bytes overwritten, biased to
     * the header) either parse or throw an {@link RlxException}: no other exception, no hang.
     */
    @Test
    void fuzz_truncationAndCorruption_onlyTypedErrors() {
        GgufWriter w = allTypesWriter();
        Random r = new Random(17);
        w.addTensor("w", GgmlType.Q4_0, new long[] {64, 2}, random(r, 128));
        w.addTensor("v", GgmlType.F16, new long[] {5}, random(r, 5));
        byte[] good = w.toBytes();
        parse(good);
        for (int len = 0; len < good.length; len++) {
            byte[] cut = java.util.Arrays.copyOf(good, len);
            try {
                parse(cut);
                // a prefix can only parse when it drops nothing but trailing padding
                assertTrue(len >= good.length - 32, "a prefix of " + len + " bytes parsed");
            } catch (RlxException expected) {
                // typed
            } catch (RuntimeException | Error e) {
                fail("prefix of " + len + " bytes: " + e, e);
            }
        }
        int headerLen = (int) parse(good).dataStart();
        for (int iter = 0; iter < 3000; iter++) {
            byte[] bad = good.clone();
            int edits = 1 + r.nextInt(8);
            for (int k = 0; k < edits; k++) {
                int at = r.nextInt(4) == 0 ? r.nextInt(bad.length) : r.nextInt(headerLen);
                bad[at] = switch (r.nextInt(4)) {
                    case 0 -> (byte) 0xFF;
                    case 1 -> 0;
                    default -> (byte) r.nextInt(256);
                };
            }
            try {
                GgufFile f = parse(bad);
                for (GgufTensor t : f.tensors()) {
                    if (t.elementCount() < 1 << 20) {
                        t.toFloats();
                    }
                }
            } catch (RlxException expected) {
                // typed
            } catch (RuntimeException | Error e) {
                fail("corruption " + iter + ": " + e, e);
            }
        }
    }
}
