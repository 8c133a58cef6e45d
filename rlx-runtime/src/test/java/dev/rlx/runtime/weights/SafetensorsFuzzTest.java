package dev.rlx.runtime.weights;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Tensor;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Truncates and mutates valid files at random: opening one may succeed (then every tensor lies inside the
 * file and matches its shape) or fail with {@link WeightFormatException}, and nothing else.
 */
class SafetensorsFuzzTest {
    private static final Pattern NUMBER = Pattern.compile("-?\\d+");
    private static final String[] NUMBERS = {"0", "1", "-1", "2", "7", "8", "9", "16", "255", "4096", "2147483647",
        "2147483648", "-2147483648", "4294967296", "9223372036854775807", "-9223372036854775808",
        "9223372036854775808", "18446744073709551615", "1e3", "0.5", "00", "-0"};
    private static final String JSONISH = "{}[]\",:0123456789-eE. \\ntfalsenul_";
    private static Path dir;

    @BeforeContainer
    static void makeDir() throws IOException {
        dir = Files.createTempDirectory("rlx-safetensors-fuzz");
    }

    @AfterContainer
    static void removeDir() throws IOException {
        try (var files = Files.list(dir)) {
            for (Path p : files.toList()) {
                Files.deleteIfExists(p);
            }
        }
        Files.deleteIfExists(dir);
    }

    static byte[] validFile(Random r) throws IOException {
        Map<String, Tensor> m = new LinkedHashMap<>();
        int n = 1 + r.nextInt(4);
        DType[] types = SafetensorsRoundTripTest.SUPPORTED.toArray(DType[]::new);
        for (int i = 0; i < n; i++) {
            int rank = r.nextInt(3);
            int[] dims = new int[rank];
            for (int d = 0; d < rank; d++) {
                dims[d] = r.nextInt(4);
            }
            m.put("t" + i, SafetensorsRoundTripTest.random(types[r.nextInt(types.length)], r, dims));
        }
        Path p = Files.createTempFile(dir, "valid", ".safetensors");
        try {
            SafetensorsWriter.write(p, m);
            return Files.readAllBytes(p);
        } finally {
            Files.delete(p);
        }
    }

    static byte[] mutate(byte[] file, Random r) {
        int headerEnd = (int) Math.min(file.length, 8 + ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).getLong(0));
        byte[] out = file.clone();
        int rounds = 1 + r.nextInt(3);
        for (int k = 0; k < rounds; k++) {
            switch (r.nextInt(7)) {
                case 0 -> out = Arrays.copyOf(out, r.nextInt(out.length + 1)); // truncate
                case 1 -> { // random bytes anywhere
                    if (out.length > 0) {
                        out[r.nextInt(out.length)] = (byte) r.nextInt(256);
                    }
                }
                case 2 -> { // JSON-ish characters in the header
                    if (headerEnd > 8 && out.length > 8) {
                        int at = 8 + r.nextInt(Math.min(headerEnd, out.length) - 8);
                        out[at] = (byte) JSONISH.charAt(r.nextInt(JSONISH.length()));
                    }
                }
                case 3 -> out = replaceNumber(out, headerEnd, r);
                case 4 -> { // another header length
                    if (out.length >= 8) {
                        long len = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
                        long[] choices = {len + 1, len - 1, len + 8, 0, -1, out.length, out.length - 8, r.nextLong(),
                            100L << 20};
                        ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN).putLong(0, choices[r.nextInt(choices.length)]);
                    }
                }
                case 5 -> { // append garbage
                    byte[] extra = new byte[r.nextInt(16)];
                    r.nextBytes(extra);
                    byte[] grown = Arrays.copyOf(out, out.length + extra.length);
                    System.arraycopy(extra, 0, grown, out.length, extra.length);
                    out = grown;
                }
                default -> { // delete a header byte (shifts the JSON against its length)
                    if (out.length > 9) {
                        int at = 8 + r.nextInt(out.length - 8);
                        byte[] shrunk = new byte[out.length - 1];
                        System.arraycopy(out, 0, shrunk, 0, at);
                        System.arraycopy(out, at + 1, shrunk, at, out.length - at - 1);
                        out = shrunk;
                    }
                }
            }
        }
        return out;
    }

    /** Replaces one number in the header text with an interesting one, fixing up the length field. */
    private static byte[] replaceNumber(byte[] file, int headerEnd, Random r) {
        if (file.length < headerEnd || headerEnd <= 8) {
            return file;
        }
        String header = new String(file, 8, headerEnd - 8, StandardCharsets.ISO_8859_1);
        Matcher m = NUMBER.matcher(header);
        int count = 0;
        while (m.find()) {
            count++;
        }
        if (count == 0) {
            return file;
        }
        int pick = r.nextInt(count);
        m.reset();
        for (int i = 0; i <= pick; i++) {
            m.find();
        }
        String replaced = header.substring(0, m.start()) + NUMBERS[r.nextInt(NUMBERS.length)] + header.substring(m.end());
        byte[] h = replaced.getBytes(StandardCharsets.ISO_8859_1);
        ByteBuffer b = ByteBuffer.allocate(8 + h.length + file.length - headerEnd).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(h.length).put(h).put(file, headerEnd, file.length - headerEnd);
        return b.array();
    }

    @Property(tries = 600)
    void open_mutatedFile_isReadOrRejectedWithWeightFormatException(@ForAll long seed) throws IOException {
        Random r = new Random(seed);
        byte[] bytes = mutate(validFile(r), r);
        Path p = Files.createTempFile(dir, "mutated", ".safetensors");
        try {
            Files.write(p, bytes);
            try (SafetensorsLoader l = SafetensorsLoader.open(p)) {
                for (String name : l.names()) {
                    WeightTensor t = l.tensor(name).orElseThrow();
                    assertEquals(t.shape().byteSize(), t.data().byteSize(), name);
                    if (t.data().byteSize() > 0) {
                        t.data().get(ValueLayout.JAVA_BYTE, t.data().byteSize() - 1); // inside the mapping
                    }
                }
            } catch (WeightFormatException e) {
                assertTrue(e.getMessage().contains(p.toString()), e.getMessage());
            }
        } finally {
            Files.delete(p);
        }
    }
}
