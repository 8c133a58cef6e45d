package dev.rlx.runtime.weights;

import dev.rlx.ir.DType;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.limits.Limits;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;

/**
 * NumPy's {@code .npy} format (versions 1 to 3): a magic string, a header dict giving the element type, the
 * order and the shape, then the elements. Reads little-endian (or byte-order-free) C-order arrays of the
 * types RLX has; writes version 1 with the header padded to 64 bytes, as {@code numpy.save} does.
 */
public final class Npy {
    private static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};
    /** Largest array read: RLX's host {@link Tensor} holds its bytes in one Java array. */
    public static final long MAX_BYTES = Integer.MAX_VALUE - 8;
    private static final Map<String, DType> TYPES = Map.ofEntries(
            Map.entry("f4", DType.F32), Map.entry("f8", DType.F64), Map.entry("f2", DType.F16),
            Map.entry("i1", DType.I8), Map.entry("i2", DType.I16), Map.entry("i4", DType.I32),
            Map.entry("i8", DType.I64), Map.entry("u1", DType.U8), Map.entry("u4", DType.U32),
            Map.entry("b1", DType.BOOL), Map.entry("c8", DType.C64));

    private Npy() {}

    /** Reads an {@code .npy} file. */
    public static Tensor read(Path file) {
        return read(file, Limits.defaults());
    }

    /** Reads an {@code .npy} file within {@code limits} (header bytes, rank, tensor bytes). */
    public static Tensor read(Path file, Limits limits) {
        if (!Files.isRegularFile(file)) { // a FIFO or device would block or never end
            throw new WeightFormatException(file + ": not a regular file");
        }
        try (InputStream in = Files.newInputStream(file)) {
            return read(in, file.toString(), limits);
        } catch (IOException e) {
            throw new WeightFormatException(file + ": cannot read (" + e.getMessage() + ")", e);
        }
    }

    /**
     * Reads one array from {@code in}; {@code name} says where it came from in errors.
     *
     * @throws WeightFormatException if the magic, header, element type, order or data length is wrong
     */
    public static Tensor read(InputStream in, String name) throws IOException {
        return read(in, name, Limits.defaults());
    }

    /**
     * Reads one array from {@code in} within {@code limits}: the header's length, the shape's rank and the
     * data's size are checked before anything of that size is read or allocated.
     *
     * @throws WeightFormatException if the magic, header, element type, order or data length is wrong
     * @throws dev.rlx.ir.limits.LimitExceededException if the header, rank or data exceeds {@code limits}
     */
    public static Tensor read(InputStream in, String name, Limits limits) throws IOException {
        byte[] head = in.readNBytes(8);
        if (head.length < 8 || !Arrays.equals(Arrays.copyOf(head, 6), MAGIC)) {
            throw fail(name, "not an .npy file (no \\x93NUMPY magic)");
        }
        int major = head[6];
        int lenBytes = major == 1 ? 2 : major == 2 || major == 3 ? 4 : -1;
        if (lenBytes < 0) {
            throw fail(name, "format version " + major + "." + head[7] + " is not supported (1 to 3 are)");
        }
        byte[] lenField = in.readNBytes(lenBytes);
        if (lenField.length < lenBytes) {
            throw fail(name, "truncated header length");
        }
        ByteBuffer lb = ByteBuffer.wrap(lenField).order(ByteOrder.LITTLE_ENDIAN);
        long headerLen = lenBytes == 2 ? Short.toUnsignedInt(lb.getShort()) : Integer.toUnsignedLong(lb.getInt());
        limits.check(Limits.Kind.HEADER_BYTES, name + ": .npy header", headerLen);
        if (headerLen > MAX_BYTES) {
            throw fail(name, "header of " + headerLen + " bytes is longer than a Java array");
        }
        byte[] hb = in.readNBytes((int) headerLen);
        if (hb.length < headerLen) {
            throw fail(name, "truncated header");
        }
        String header = new String(hb, major == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
        Shape shape = NpyHeader.parse(name, header, limits).shape();
        limits.check(Limits.Kind.TENSOR_BYTES, name + ": " + shape, shape.byteSize());
        if (shape.byteSize() > MAX_BYTES) {
            throw fail(name, shape + " is " + shape.byteSize() + " bytes; at most " + MAX_BYTES + " are read");
        }
        byte[] data = in.readNBytes((int) shape.byteSize());
        if (data.length < shape.byteSize()) {
            throw fail(name, shape + " needs " + shape.byteSize() + " bytes of data but the file has " + data.length);
        }
        if (in.read() != -1) {
            throw fail(name, "has bytes after the " + shape + " data");
        }
        return Tensor.ofBytes(shape, data);
    }

    /** Writes {@code t} as an {@code .npy} file (version 1, C order, little-endian). */
    public static void write(Path file, Tensor t) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            write(out, t);
        }
    }

    /**
     * Writes {@code t} to {@code out}.
     *
     * @throws IllegalArgumentException when the dtype has no NumPy type (BF16)
     */
    public static void write(OutputStream out, Tensor t) throws IOException {
        String code = TYPES.entrySet().stream().filter(e -> e.getValue() == t.dtype()).map(Map.Entry::getKey)
                .findFirst().orElseThrow(() -> new IllegalArgumentException(
                        t.shape() + ": NumPy has no " + t.dtype().label() + " type"));
        StringBuilder dims = new StringBuilder();
        for (int d : t.shape().dims()) {
            dims.append(d).append(", ");
        }
        if (t.shape().rank() > 1) {
            dims.setLength(dims.length() - 2);
        } else if (t.shape().rank() == 1) {
            dims.setLength(dims.length() - 1);
        }
        String order = t.dtype().byteSize() == 1 ? "|" : "<";
        StringBuilder header = new StringBuilder(String.format(Locale.ROOT,
                "{'descr': '%s%s', 'fortran_order': False, 'shape': (%s), }", order, code, dims));
        int total = MAGIC.length + 2 + 2 + header.length() + 1;
        header.append(" ".repeat((64 - total % 64) % 64)).append('\n');
        out.write(MAGIC);
        out.write(new byte[] {1, 0});
        out.write(ByteBuffer.allocate(2).order(ByteOrder.LITTLE_ENDIAN).putShort((short) header.length()).array());
        out.write(header.toString().getBytes(StandardCharsets.ISO_8859_1));
        out.write(t.bytes());
    }

    /** The RLX dtype of NumPy type code {@code code} (such as {@code f4}), or null. */
    static DType dtype(String code) {
        return TYPES.get(code);
    }

    static WeightFormatException fail(String name, String what) {
        return new WeightFormatException(name + ": " + what);
    }
}
