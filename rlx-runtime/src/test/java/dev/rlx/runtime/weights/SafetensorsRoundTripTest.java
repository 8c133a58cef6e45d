package dev.rlx.runtime.weights;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SafetensorsRoundTripTest {
    @TempDir
    Path dir;

    /** Every dtype safetensors has a name for; C64 is RLX-only. */
    static final List<DType> SUPPORTED = List.copyOf(EnumSet.complementOf(EnumSet.of(DType.C64)));

    static Tensor random(DType dt, Random r, int... dims) {
        Shape s = Shape.of(dt, dims);
        byte[] b = new byte[(int) s.byteSize()];
        r.nextBytes(b);
        if (dt == DType.BOOL) {
            for (int i = 0; i < b.length; i++) {
                b[i] = (byte) (b[i] & 1);
            }
        }
        return Tensor.ofBytes(s, b);
    }

    private static byte[] bytes(WeightTensor t) {
        return t.data().toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void writeThenOpen_everySupportedDtype_keepsValuesShapesAndOrder() throws IOException {
        Random r = new Random(7);
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        int[][] shapes = {{3, 5}, {7}, {}, {2, 1, 3}, {0, 4}};
        int k = 0;
        for (DType dt : SUPPORTED) {
            // Names out of alphabetical order: the file must keep the caller's order.
            tensors.put((char) ('z' - k) + "_" + dt.label(), random(dt, r, shapes[k % shapes.length]));
            k++;
        }
        Path p = dir.resolve("all.safetensors");
        SafetensorsWriter.write(p, tensors);

        try (SafetensorsLoader l = SafetensorsLoader.open(p)) {
            assertEquals(new ArrayList<>(tensors.keySet()), l.names());
            assertEquals(p, l.path());
            assertEquals(Map.of(), l.metadata());
            for (Map.Entry<String, Tensor> e : tensors.entrySet()) {
                WeightTensor t = l.tensor(e.getKey()).orElseThrow();
                assertEquals(e.getKey(), t.name());
                assertEquals(e.getValue().shape(), t.shape(), e.getKey());
                assertArrayEquals(e.getValue().bytes(), bytes(t), e.getKey());
                assertTrue(t.data().isReadOnly(), "weights are read-only views of the mapping");
            }
            assertTrue(l.tensor("missing").isEmpty());
        }
    }

    @Test
    void write_padsTheHeaderSoTheDataIsEightByteAligned() throws IOException {
        Path p = dir.resolve("pad.safetensors");
        SafetensorsWriter.write(p, Map.of("x", Tensor.of(new double[] {1.5, -2}, 2)));
        byte[] file = Files.readAllBytes(p);
        long headerLen = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
        assertEquals(0, headerLen % 8);
        assertEquals(8 + headerLen + 16, file.length);
        assertEquals(1.5, ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).getDouble((int) (8 + headerLen)));
    }

    @Test
    void write_valuesReadBackAsNumbers() throws IOException {
        Path p = dir.resolve("values.safetensors");
        Map<String, Tensor> m = new LinkedHashMap<>();
        m.put("f", Tensor.of(new float[] {1, -2.5f, 3e7f}, 3));
        m.put("i", Tensor.of(new long[] {Long.MIN_VALUE, 42}, 2, 1));
        m.put("b", Tensor.of(new boolean[] {true, false}, 2));
        SafetensorsWriter.write(p, m);
        try (SafetensorsLoader l = SafetensorsLoader.open(p)) {
            WeightTensor f = l.tensor("f").orElseThrow();
            assertEquals(-2.5f, f.data().getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, 1));
            WeightTensor i = l.tensor("i").orElseThrow();
            assertEquals(Long.MIN_VALUE, i.data().getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, 0));
            assertEquals(Shape.of(DType.I64, 2, 1), i.shape());
            assertEquals(Shape.of(DType.BOOL, 2), l.tensor("b").orElseThrow().shape());
            assertArrayEquals(new byte[] {1, 0}, bytes(l.tensor("b").orElseThrow()));
        }
    }

    @Test
    void write_emptyMap_givesAFileWithNoTensors() throws IOException {
        Path p = dir.resolve("empty.safetensors");
        SafetensorsWriter.write(p, Map.of());
        try (SafetensorsLoader l = SafetensorsLoader.open(p)) {
            assertEquals(List.of(), l.names());
        }
    }

    @Test
    void write_c64Tensor_isRejectedBeforeWritingAFileNoLoaderReads() {
        Path p = dir.resolve("complex.safetensors");
        Tensor c = Tensor.ofBytes(Shape.of(DType.C64, 2), new byte[16]);
        Map<String, Tensor> m = new LinkedHashMap<>();
        m.put("ok", Tensor.of(new float[] {1}, 1));
        m.put("spectrum", c);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SafetensorsWriter.write(p, m));
        assertTrue(e.getMessage().contains("'spectrum'") && e.getMessage().contains("c64"), e.getMessage());
        assertFalse(Files.exists(p), "no partial file is left behind");
    }

    @Test
    void open_metadata_isReadableAndNotATensor() throws IOException {
        String header = "{\"__metadata__\":{\"format\":\"pt\",\"note\":\"caf\\u00e9\"},"
                + "\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}";
        Path p = SafetensorsFiles.write(dir, "meta.safetensors", SafetensorsFiles.file(header, 8));
        try (SafetensorsLoader l = SafetensorsLoader.open(p)) {
            assertEquals(Map.of("format", "pt", "note", "caf\u00e9"), l.metadata());
            assertEquals(List.of("w"), l.names());
        }
    }

    @Test
    void open_unknownEntryKeysAndSpacePadding_areAccepted() throws IOException {
        String header = "{\"w\":{\"extra\":{\"nested\":[1,2]},\"dtype\":\"I16\",\"shape\":[3],\"data_offsets\":[0,6]}}      ";
        Path p = SafetensorsFiles.write(dir, "extra.safetensors", SafetensorsFiles.file(header, 6));
        try (SafetensorsLoader l = SafetensorsLoader.open(p)) {
            assertEquals(Shape.of(DType.I16, 3), l.tensor("w").orElseThrow().shape());
        }
    }

    @Test
    void open_emptyTensorSharingAnOffsetWithTheNextOne_isNotAnOverlap() throws IOException {
        // Reference writers list names alphabetically, not by offset: "b" holds [8, 20) and the empty "c"
        // sits at [8, 8). An empty tensor occupies no bytes and overlaps nothing.
        String header = "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                + "\"b\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[8,20]},"
                + "\"c\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[8,8]}}";
        Path p = SafetensorsFiles.write(dir, "emptyshare.safetensors", SafetensorsFiles.file(header, 20));
        try (SafetensorsLoader l = SafetensorsLoader.open(p)) {
            assertEquals(List.of("a", "b", "c"), l.names());
            assertEquals(0, l.tensor("c").orElseThrow().data().byteSize());
            assertEquals(12, l.tensor("b").orElseThrow().data().byteSize());
        }
    }

    @Test
    void close_unmapsTheFile() throws IOException {
        Path p = dir.resolve("c.safetensors");
        SafetensorsWriter.write(p, Map.of("x", Tensor.of(new float[] {1, 2}, 2)));
        SafetensorsLoader l = SafetensorsLoader.open(p);
        WeightTensor t = l.tensor("x").orElseThrow();
        l.close();
        assertThrows(IllegalStateException.class, () -> t.data().get(ValueLayout.JAVA_BYTE, 0));
    }
}
