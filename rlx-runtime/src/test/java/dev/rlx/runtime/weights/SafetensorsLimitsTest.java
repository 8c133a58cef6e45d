package dev.rlx.runtime.weights;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.limits.LimitExceededException;
import dev.rlx.ir.limits.Limits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The header-size and tensor-count limits of {@link SafetensorsLoader}: a header of a million tensors took 17-41 s
 * and 3.6 times its size in heap (issue 21); now it is refused by {@link Limits.Kind#TENSOR_COUNT} as the first
 * tensor over the limit is read, and by {@link Limits.Kind#HEADER_BYTES} before the header is copied.
 */
class SafetensorsLimitsTest {

    /** A header of {@code n} one-float tensors and their data. */
    static byte[] tensors(int n) {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "" : ",").append("\"t").append(i).append("\":{\"dtype\":\"F32\",\"shape\":[1],")
                    .append("\"data_offsets\":[").append(4 * i).append(',').append(4 * i + 4).append("]}");
        }
        return SafetensorsFiles.file(sb.append('}').toString(), 4 * n);
    }

    private static Path write(byte[] b) throws IOException {
        Path p = Files.createTempFile("limits", ".safetensors");
        Files.write(p, b);
        return p;
    }

    @Test
    void tensorCountOverTheLimit_refusedNamingTheFile() throws IOException {
        Path p = write(tensors(11));
        try {
            LimitExceededException e = assertThrows(LimitExceededException.class,
                    () -> SafetensorsLoader.open(p, Limits.builder().tensorCount(10).build()));
            assertEquals(Limits.Kind.TENSOR_COUNT, e.kind());
            assertEquals(11, e.asked());
            assertTrue(e.getMessage().contains(p.toString()) && e.getMessage().contains("RLX_MAX_TENSOR_COUNT"),
                    e.getMessage());
        } finally {
            Files.delete(p);
        }
    }

    @Test
    void headerOverTheLimit_refusedBeforeCopyingIt() throws IOException {
        byte[] b = tensors(3);
        long headerLen = b.length - 12 - 8;
        Path p = write(b);
        try {
            LimitExceededException e = assertThrows(LimitExceededException.class,
                    () -> SafetensorsLoader.open(p, Limits.builder().headerBytes(headerLen - 1).build()));
            assertEquals(Limits.Kind.HEADER_BYTES, e.kind());
            assertEquals(headerLen, e.asked());
            try (SafetensorsLoader l = SafetensorsLoader.open(p, Limits.builder().headerBytes(headerLen).build())) {
                assertEquals(3, l.names().size());
            }
        } finally {
            Files.delete(p);
        }
    }

    @Test
    void dataOverTheWeightLimit_refused() throws IOException {
        Path p = write(tensors(4));
        try {
            LimitExceededException e = assertThrows(LimitExceededException.class,
                    () -> SafetensorsLoader.open(p, Limits.builder().weightBytes(15).build()));
            assertEquals(Limits.Kind.WEIGHT_BYTES, e.kind());
            assertEquals(16, e.asked());
        } finally {
            Files.delete(p);
        }
    }

    /** The count limit admits exactly the files of at most that many tensors; their data reads back. */
    @Property(tries = 40)
    void countLimit_admitsExactlyFilesUpToIt(@ForAll @IntRange(min = 0, max = 30) int n,
                                             @ForAll @IntRange(min = 0, max = 30) int limit) throws IOException {
        Path p = write(tensors(n));
        try {
            Limits l = Limits.builder().tensorCount(limit).build();
            if (n <= limit) {
                try (SafetensorsLoader s = SafetensorsLoader.open(p, l)) {
                    assertEquals(n, s.names().size());
                    for (int i = 0; i < n; i++) {
                        assertEquals(4, s.tensor("t" + i).orElseThrow().data().byteSize());
                    }
                }
            } else {
                assertEquals(limit + 1L, assertThrows(LimitExceededException.class, () -> SafetensorsLoader.open(p, l))
                        .asked());
            }
        } finally {
            Files.delete(p);
        }
    }
}
