package dev.rlx.runtime.weights;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import dev.rlx.ir.limits.LimitExceededException;
import dev.rlx.ir.limits.Limits;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code .npy} files byte for byte as {@code numpy.save} writes them, round trips, and malformed files. */
class NpyTest {
    /** {@code numpy.save} of {@code np.arange(6, dtype=np.float32).reshape(2, 3)}: header padded to 128 bytes. */
    private static byte[] numpyArange() {
        String header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" + " ".repeat(58) + "\n";
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 118, 0});
        b.writeBytes(header.getBytes(StandardCharsets.ISO_8859_1));
        b.writeBytes(Tensor.of(new float[] {0, 1, 2, 3, 4, 5}, 2, 3).bytes());
        return b.toByteArray();
    }

    private static byte[] written(Tensor t) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Npy.write(out, t);
        return out.toByteArray();
    }

    private static Tensor read(byte[] b) throws IOException {
        return Npy.read(new ByteArrayInputStream(b), "x.npy");
    }

    @Test
    void write_matchesNumpySave() throws IOException {
        byte[] np = numpyArange();
        assertEquals(152, np.length);
        assertArrayEquals(np, written(Tensor.of(new float[] {0, 1, 2, 3, 4, 5}, 2, 3)));
        assertEquals(Tensor.of(new float[] {0, 1, 2, 3, 4, 5}, 2, 3), read(np));
    }

    @Test
    void roundTrip_everyNumpyType_andRanks0To3() throws IOException {
        List<Tensor> ts = List.of(Tensor.of(new long[] {1, -2, 300}, 3), Tensor.scalar(DType.U8, 7),
                Tensor.of(new boolean[] {true, false}, 2), Tensor.of(new double[] {1.5}, 1, 1),
                Tensor.of(new int[] {1, 2, 3, 4, 5, 6, 7, 8}, 2, 2, 2), Tensor.scalar(DType.I8, -5),
                Tensor.scalar(DType.F16, 0.5), Tensor.scalar(DType.I16, -300), Tensor.scalar(DType.U32, 4e9),
                Tensor.of(new float[0], 0, 4));
        for (Tensor t : ts) {
            byte[] b = written(t);
            assertEquals(0, (b.length - t.byteLength()) % 64, t + ": header padded to 64 bytes");
            assertEquals(t, read(b), t.toString());
        }
        String h = new String(written(Tensor.scalar(DType.U8, 7)), StandardCharsets.ISO_8859_1);
        assertTrue(h.contains("'descr': '|u1', 'fortran_order': False, 'shape': (), }"), h);
    }

    @Test
    void file_roundTrip(@TempDir Path dir) throws IOException {
        Tensor t = Tensor.of(new float[] {1, 2}, 1, 2);
        Npy.write(dir.resolve("t.npy"), t);
        assertEquals(t, Npy.read(dir.resolve("t.npy")));
        WeightFormatException e = assertThrows(WeightFormatException.class, () -> Npy.read(dir.resolve("missing.npy")));
        assertTrue(e.getMessage().contains("missing.npy"), e.getMessage());
    }

    private static void assertBad(byte[] b, String expected) {
        WeightFormatException e = assertThrows(WeightFormatException.class, () -> read(b));
        assertTrue(e.getMessage().startsWith("x.npy: ") && e.getMessage().contains(expected), e.getMessage());
    }

    private static byte[] withHeader(String from, String to) {
        String s = new String(numpyArange(), StandardCharsets.ISO_8859_1).replace(from, to);
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void read_malformedFilesAreNamed() {
        byte[] np = numpyArange();
        assertBad("PK\u0003\u0004 not numpy".getBytes(StandardCharsets.ISO_8859_1), "no \\x93NUMPY magic");
        assertBad(Arrays.copyOf(np, 140), "needs 24 bytes of data but the file has 12");
        assertBad(Arrays.copyOf(np, 60), "truncated header");
        assertBad(Arrays.copyOf(np, np.length + 1), "bytes after");
        assertBad(withHeader("False", "True "), "Fortran-order");
        assertBad(withHeader("<f4", ">f4"), "big-endian");
        assertBad(withHeader("<f4", "<U4"), "'<U4' has no RLX dtype");
        assertBad(withHeader("(2, 3)", "(2, x)"), "'x' is not a number");
        byte[] v9 = np.clone();
        v9[6] = 9;
        assertBad(v9, "version 9.0");
    }

    @Test
    void write_bf16IsRejected() {
        assertThrows(IllegalArgumentException.class, () -> written(Tensor.ofBytes(Shape.of(DType.BF16, 1), new byte[2])));
    }

    /** An .npy file whose header is {@code dict} (padded as numpy does) and no data. */
    private static byte[] withDict(String dict) {
        byte[] h = (dict + "\n").getBytes(StandardCharsets.ISO_8859_1);
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0});
        b.writeBytes(new byte[] {(byte) h.length, (byte) (h.length >>> 8), (byte) (h.length >>> 16), (byte) (h.length >>> 24)});
        b.writeBytes(h);
        return b.toByteArray();
    }

    // Regression (issue 21): the shape regular expression scanned a header of repeated "'shape': (" quadratically
    // (95 KB: 20 s, 950 KB: over a minute). The timeout only guards against the hang; the parse is one pass.
    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void repeatedShapeKeys_rejectedInOnePass() {
        byte[] b = withDict("{'descr': '<f4', 'fortran_order': False, " + "'shape': (".repeat(95_000));
        assertBad(b, "is not a number");
    }

    // Regression (issue 21): a shape of 330,000 entries was copied once per entry before its rank was checked.
    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void hugeRank_rejectedByTheRankLimit() {
        byte[] b = withDict("{'descr': '<f4', 'fortran_order': False, 'shape': (" + "1, ".repeat(330_000) + "), }");
        LimitExceededException e = assertThrows(LimitExceededException.class, () -> read(b));
        assertEquals(Limits.Kind.RANK, e.kind());
        assertTrue(e.getMessage().contains("x.npy"), e.getMessage());
    }

    @Test
    void headerOverTheLimit_rejectedBeforeReadingIt() {
        byte[] np = numpyArange();
        Limits small = Limits.builder().headerBytes(100).build();
        LimitExceededException e = assertThrows(LimitExceededException.class,
                () -> Npy.read(new ByteArrayInputStream(np), "x.npy", small));
        assertEquals(Limits.Kind.HEADER_BYTES, e.kind());
        assertEquals(118, e.asked());
        // a 4 GiB header length in a version-2 file is refused by the limit, not attempted
        byte[] v2 = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, -1, -1, -1, -1};
        assertEquals(Limits.Kind.HEADER_BYTES, assertThrows(LimitExceededException.class, () -> read(v2)).kind());
    }

    @Test
    void dataOverTheTensorLimit_rejectedBeforeAllocating() {
        byte[] b = withDict("{'descr': '<f8', 'fortran_order': False, 'shape': (100000, 100000), }");
        LimitExceededException e = assertThrows(LimitExceededException.class,
                () -> Npy.read(new ByteArrayInputStream(b), "x.npy", Limits.builder().tensorBytes(1 << 20).build()));
        assertEquals(8L * 100000 * 100000, e.asked());
    }

    @Test
    void headerSyntax_errorsNameTheCharacter() {
        assertBad(withDict("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}"), "unknown header key 'x'");
        assertBad(withDict("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': ()}"), "appears twice");
        assertBad(withDict("{'descr': '<f4', 'fortran_order': False}"), "lacks descr, fortran_order or shape");
        assertBad(withDict("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999,)}"), "out of range");
        assertBad(withDict("{'descr': '<f4', 'fortran_order': Maybe, 'shape': ()}"), "expected True or False");
        assertBad(withDict("{'descr': '<f4 "), "unterminated string");
    }

    /** The rank limit admits exactly the shapes of at most that many dimensions. */
    @Property(tries = 60)
    void rankLimit_admitsExactlyShapesUpToIt(@ForAll @IntRange(min = 0, max = 12) int rank,
                                             @ForAll @IntRange(min = 0, max = 12) int limit) throws IOException {
        int[] dims = new int[rank];
        Arrays.fill(dims, 1);
        byte[] b = written(Tensor.ofBytes(Shape.of(DType.U8, dims), new byte[1]));
        Limits l = Limits.builder().rank(limit).build();
        if (rank <= limit) {
            assertEquals(rank, Npy.read(new ByteArrayInputStream(b), "x.npy", l).shape().rank());
        } else {
            LimitExceededException e = assertThrows(LimitExceededException.class,
                    () -> Npy.read(new ByteArrayInputStream(b), "x.npy", l));
            assertEquals(limit + 1, e.asked());
        }
    }

    /** The tensor-bytes limit admits exactly the arrays of at most that many bytes. */
    @Property(tries = 60)
    void tensorLimit_admitsExactlyArraysUpToIt(@ForAll @IntRange(min = 0, max = 40) int n,
                                               @ForAll @IntRange(min = 0, max = 160) int limit) throws IOException {
        byte[] b = written(Tensor.of(new float[n], n));
        Limits l = Limits.builder().tensorBytes(limit).build();
        if (4L * n <= limit) {
            assertEquals(n, Npy.read(new ByteArrayInputStream(b), "x.npy", l).shape().dim(0));
        } else {
            assertEquals(4L * n, assertThrows(LimitExceededException.class,
                    () -> Npy.read(new ByteArrayInputStream(b), "x.npy", l)).asked());
        }
    }
}
