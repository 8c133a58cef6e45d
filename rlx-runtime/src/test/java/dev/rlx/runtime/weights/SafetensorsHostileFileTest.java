package dev.rlx.runtime.weights;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Malformed files must each give a {@link WeightFormatException} naming the file and what is wrong, never an
 * index, argument, allocation or size error from deeper down.
 */
class SafetensorsHostileFileTest {
    @TempDir
    Path dir;

    private WeightFormatException rejected(byte[] file, String... parts) throws IOException {
        Path p = SafetensorsFiles.write(dir, "bad.safetensors", file);
        WeightFormatException e = assertThrows(WeightFormatException.class, () -> SafetensorsLoader.open(p).close());
        assertTrue(e.getMessage().contains(p.toString()), "the message must name the file: " + e.getMessage());
        for (String part : parts) {
            assertTrue(e.getMessage().contains(part), "message lacks \"" + part + "\": " + e.getMessage());
        }
        return e;
    }

    private static String entry(String name, String dtype, String shape, String offsets) {
        return "\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape + ",\"data_offsets\":" + offsets + "}";
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 7})
    void open_fileShorterThanTheLengthField(int size) throws IOException {
        rejected(new byte[size], size + " bytes", "too short");
    }

    @Test
    void open_headerLengthLargerThanTheFile() throws IOException {
        rejected(SafetensorsFiles.withLength(1000, "{}".getBytes()), "header length 1000", "file has 10 bytes");
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 1, -1, -8, Long.MIN_VALUE, Long.MAX_VALUE, (100L << 20) + 1})
    void open_headerLengthOutOfRange(long len) throws IOException {
        rejected(SafetensorsFiles.withLength(len, "{}      ".getBytes()), "header length " + len, "offset 0");
    }

    @Test
    void open_headerLengthOverTheLimitInALargeEnoughFile_isRejectedWithoutReadingIt() throws IOException {
        Path p = dir.resolve("huge.safetensors");
        long len = (100L << 20) + 8;
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.setLength(8 + len); // sparse: takes no disk space
            f.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(len).array());
        }
        WeightFormatException e = assertThrows(WeightFormatException.class, () -> SafetensorsLoader.open(p).close());
        assertTrue(e.getMessage().contains("header length " + len) && e.getMessage().contains("limit " + (100L << 20)),
                e.getMessage());
        assertTrue(e.getMessage().contains(p.toString()), e.getMessage());
    }

    @Test
    void open_missingFile_isAWeightFormatExceptionNamingIt() {
        Path p = dir.resolve("nope.safetensors");
        WeightFormatException e = assertThrows(WeightFormatException.class, () -> SafetensorsLoader.open(p));
        assertTrue(e.getMessage().contains(p.toString()) && e.getMessage().contains("cannot read"), e.getMessage());
    }

    static Stream<Arguments> hostileHeaders() {
        String ok = entry("a", "F32", "[2]", "[0,8]");
        return Stream.of(
                // not JSON, or not one object
                Arguments.of("{\"a\":", 0, new String[] {"not valid JSON"}),
                Arguments.of("{'a':1}", 0, new String[] {"not valid JSON"}),
                Arguments.of("{\"a\":{\"dtype\":\"F32\u0001\"}}", 0, new String[] {"not valid JSON"}),
                Arguments.of("[1,2]", 0, new String[] {"the header", "START_OBJECT"}),
                Arguments.of("\"str\"", 0, new String[] {"the header"}),
                Arguments.of("42", 0, new String[] {"the header"}),
                Arguments.of("null", 0, new String[] {"the header"}),
                Arguments.of("    ", 0, new String[] {"the header"}),
                Arguments.of("{" + ok + "} {}", 8, new String[] {"not a single JSON object"}),
                Arguments.of("{\"a\":{\"x\":[[[[[[[[[[[1]]]]]]]]]]]}}", 0, new String[] {"not valid JSON"}),
                // entries
                Arguments.of("{\"a\":5}", 0, new String[] {"tensor 'a'", "START_OBJECT"}),
                Arguments.of("{\"a\":[]}", 0, new String[] {"tensor 'a'"}),
                Arguments.of("{\"a\":{\"shape\":[2],\"data_offsets\":[0,8]}}", 8, new String[] {"tensor 'a' lacks dtype"}),
                Arguments.of("{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,8]}}", 8, new String[] {"tensor 'a' lacks"}),
                Arguments.of("{\"a\":{\"dtype\":\"F32\",\"shape\":[2]}}", 8, new String[] {"tensor 'a' lacks"}),
                Arguments.of("{\"a\":{}}", 0, new String[] {"tensor 'a' lacks"}),
                Arguments.of("{\"a\":{\"dtype\":4,\"shape\":[1],\"data_offsets\":[0,4]}}", 4,
                        new String[] {"tensor 'a' dtype"}),
                Arguments.of("{" + entry("a", "F8_E4M3", "[2]", "[0,2]") + "}", 2,
                        new String[] {"tensor 'a'", "unsupported dtype 'F8_E4M3'"}),
                Arguments.of("{" + entry("a", "f32", "[2]", "[0,8]") + "}", 8, new String[] {"unsupported dtype 'f32'"}),
                Arguments.of("{" + entry("a", "C64", "[1]", "[0,8]") + "}", 8, new String[] {"unsupported dtype 'C64'"}),
                Arguments.of("{" + entry("a", "", "[1]", "[0,8]") + "}", 8, new String[] {"unsupported dtype ''"}),
                // shapes
                Arguments.of("{" + entry("a", "F32", "[-1]", "[0,0]") + "}", 0, new String[] {"tensor 'a'", "invalid dimension -1"}),
                Arguments.of("{" + entry("a", "F32", "[3000000000]", "[0,0]") + "}", 0,
                        new String[] {"tensor 'a'", "invalid dimension 3000000000"}),
                Arguments.of("{" + entry("a", "F32", "[2147483647,2147483647,2147483647]", "[0,0]") + "}", 0,
                        new String[] {"tensor 'a'", "overflows"}),
                Arguments.of("{" + entry("a", "F32", "[99999999999999999999]", "[0,0]") + "}", 0,
                        new String[] {"tensor 'a' shape", "too large"}),
                Arguments.of("{" + entry("a", "F32", "[2.0]", "[0,8]") + "}", 8, new String[] {"tensor 'a' shape"}),
                Arguments.of("{" + entry("a", "F32", "2", "[0,8]") + "}", 8, new String[] {"tensor 'a' shape"}),
                Arguments.of("{" + entry("a", "F32", "[[2]]", "[0,8]") + "}", 8, new String[] {"tensor 'a' shape"}),
                Arguments.of("{" + entry("a", "F32", "[" + "1,".repeat(70) + "1]", "[0,4]") + "}", 4,
                        new String[] {"tensor 'a' shape", "more than 64"}),
                // offsets
                Arguments.of("{" + entry("a", "F32", "[2]", "[0,8]") + "}", 4,
                        new String[] {"tensor 'a'", "[0, 8)", "outside the data section of 4 bytes"}),
                Arguments.of("{" + entry("a", "F32", "[2]", "[8,0]") + "}", 8, new String[] {"tensor 'a'", "[8, 0)"}),
                Arguments.of("{" + entry("a", "F32", "[2]", "[-8,0]") + "}", 8, new String[] {"tensor 'a'", "[-8, 0)"}),
                Arguments.of("{" + entry("a", "F32", "[2]", "[0,9223372036854775807]") + "}", 8,
                        new String[] {"tensor 'a'", "[0, 9223372036854775807)"}),
                Arguments.of("{" + entry("a", "F32", "[2]", "[0,99999999999999999999]") + "}", 8,
                        new String[] {"tensor 'a' data_offsets", "too large"}),
                Arguments.of("{" + entry("a", "F32", "[2]", "[0,4,8]") + "}", 8,
                        new String[] {"tensor 'a'", "must have 2 entries but has 3"}),
                Arguments.of("{" + entry("a", "F32", "[2]", "[]") + "}", 8, new String[] {"tensor 'a'", "has 0"}),
                Arguments.of("{" + entry("a", "F32", "[2]", "{}") + "}", 8, new String[] {"tensor 'a' data_offsets"}),
                Arguments.of("{" + entry("a", "F32", "[3]", "[0,8]") + "}", 8,
                        new String[] {"tensor 'a'", "f32[3] needs 12 bytes", "[0, 8) span 8"}),
                Arguments.of("{" + entry("a", "F32", "[2]", "[0,8]") + "," + entry("b", "F32", "[2]", "[4,12]") + "}", 12,
                        new String[] {"tensors 'a' [0, 8) and 'b' [4, 12) overlap"}),
                Arguments.of("{" + entry("b", "F32", "[1]", "[8,12]") + "," + entry("a", "F32", "[4]", "[0,16]") + "}", 16,
                        new String[] {"'a' [0, 16) and 'b' [8, 12) overlap"}),
                Arguments.of("{" + ok + "," + entry("a", "F32", "[1]", "[8,12]") + "}", 12,
                        new String[] {"tensor 'a' appears twice"}),
                // metadata
                Arguments.of("{\"__metadata__\":{\"k\":1}}", 0, new String[] {"__metadata__.k"}),
                Arguments.of("{\"__metadata__\":{\"k\":{\"deep\":\"x\"}}}", 0, new String[] {"__metadata__.k"}),
                Arguments.of("{\"__metadata__\":\"x\"}", 0, new String[] {"__metadata__"}),
                Arguments.of("{\"__metadata__\":{\"a\":\"1\"},\"__metadata__\":{\"b\":\"2\"}}", 0,
                        new String[] {"'__metadata__' appears twice"}),
                Arguments.of("{\"__metadata__\":{},\"__metadata__\":{\"b\":\"2\"}}", 0,
                        new String[] {"'__metadata__' appears twice"}));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("hostileHeaders")
    void open_hostileHeader_isAWeightFormatException(String header, int dataBytes, String[] parts) throws IOException {
        rejected(SafetensorsFiles.file(header, dataBytes), parts);
    }

    @Test
    void open_directory_isAWeightFormatExceptionNamingIt() {
        WeightFormatException e = assertThrows(WeightFormatException.class, () -> SafetensorsLoader.open(dir).close());
        assertTrue(e.getMessage().contains(dir.toString()), e.getMessage());
    }

    @Test
    void open_headerWithInvalidUtf8_isAWeightFormatException() throws IOException {
        byte[] header = {'{', '"', (byte) 0xC3, (byte) 0x28, '"', ':', '1', '}'};
        rejected(SafetensorsFiles.withLength(header.length, header));
    }
}
