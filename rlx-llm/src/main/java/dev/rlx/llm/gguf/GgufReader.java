package dev.rlx.llm.gguf;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.rlx.ir.limits.Limits;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Parses a GGUF image (versions 2 and 3, little-endian) held in a memory segment. The image is untrusted:
 * before anything is allocated or sliced, every count is checked against the bytes left (times the fewest bytes
 * one item can take) and against {@link Limits}, every offset and size against the image, and the arithmetic
 * against overflow. Errors are {@link GgufFormatException}s naming the source, the field and its byte offset.
 */
final class GgufReader {
    /** "GGUF" read as a little-endian uint32. */
    static final int MAGIC = 0x46554747;
    static final int DEFAULT_ALIGNMENT = 32;
    /** ggml's GGML_MAX_DIMS. */
    static final int MAX_DIMS = 4;
    /** Arrays of arrays nest at most this deep (llama.cpp writes none). */
    static final int MAX_ARRAY_DEPTH = 3;

    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LE_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort LE_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final MemorySegment image;
    private final long size;
    private final String source;
    private final Limits limits;
    private long pos;

    /** What a parsed image holds; the tensors' data are slices of the image. */
    record Parsed(int version, int alignment, long dataStart, GgufMetadata metadata, List<GgufTensor> tensors) {}

    private GgufReader(MemorySegment image, String source, Limits limits) {
        this.image = image;
        this.size = image.byteSize();
        this.source = source;
        this.limits = limits;
    }

    static Parsed parse(MemorySegment image, String source, Limits limits) {
        return new GgufReader(image, source, limits).parse();
    }

    private GgufFormatException error(long at, String message) {
        return new GgufFormatException(source + ": " + message + " (at byte " + at + ")", at);
    }

    private Parsed parse() {
        if (size < 24) {
            throw error(0, size + " bytes is too short for a GGUF header (24 bytes)");
        }
        int magic = u32(0);
        if (magic != MAGIC) {
            throw error(0, String.format("magic is 0x%08x, not 0x%08x (\"GGUF\")", magic, MAGIC));
        }
        int version = u32(4);
        if (version == 1) {
            throw error(4, "GGUF version 1 (32-bit counts) is not supported; convert the file to version 3");
        }
        if (Integer.reverseBytes(version) == 2 || Integer.reverseBytes(version) == 3) {
            throw error(4, "this is a big-endian GGUF file; only little-endian files are supported");
        }
        if (version != 2 && version != 3) {
            throw error(4, "GGUF version " + Integer.toUnsignedString(version) + " is not supported (2 or 3)");
        }
        pos = 8;
        long tensorCount = count(u64(), 8 + 4 + 4 + 8, "tensor count", 8);
        limits.check(Limits.Kind.TENSOR_COUNT, source + " tensor count at byte 8", tensorCount);
        long kvCount = count(u64(), 8 + 4 + 1, "metadata key count", 16);

        Map<String, GgufValue> kv = new LinkedHashMap<>();
        for (long i = 0; i < kvCount; i++) {
            long at = pos;
            String key = string("metadata key " + i);
            if (key.isEmpty()) {
                throw error(at, "metadata key " + i + " is empty");
            }
            long typeAt = pos;
            GgufValueType type = valueType(u32(), typeAt, "type of metadata '" + key + "'");
            GgufValue v = value(type, "metadata '" + key + "'", 0);
            if (kv.putIfAbsent(key, v) != null) {
                throw error(at, "metadata key '" + key + "' appears twice");
            }
        }
        int alignment = DEFAULT_ALIGNMENT;
        GgufValue a = kv.get("general.alignment");
        if (a != null) {
            long av = a.type().integer() ? (Long) a.value() : -1;
            if (a.type() != GgufValueType.UINT32 || av <= 0 || Long.bitCount(av) != 1 || av > (1 << 30)) {
                throw error(-1, "general.alignment must be a UINT32 power of two, is " + a.type() + " " + a.value());
            }
            alignment = (int) av;
        }

        List<long[]> ranges = new ArrayList<>(); // per tensor: relative offset, bytes, info position
        List<String> names = new ArrayList<>();
        List<GgmlType> types = new ArrayList<>();
        List<long[]> dimsList = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (long i = 0; i < tensorCount; i++) {
            long at = pos;
            String name = string("name of tensor " + i);
            if (!seen.add(name)) {
                throw error(at, "tensor '" + name + "' appears twice");
            }
            long dimsAt = pos;
            int nDims = u32();
            if (nDims < 0 || nDims > MAX_DIMS) {
                throw error(dimsAt, "tensor '" + name + "' has " + Integer.toUnsignedString(nDims)
                        + " dimensions, more than " + MAX_DIMS);
            }
            long[] dims = new long[nDims];
            long elems = 1;
            for (int d = 0; d < nDims; d++) {
                long dAt = pos;
                dims[d] = u64();
                if (dims[d] < 0) {
                    throw error(dAt, "tensor '" + name + "' dimension " + d + " is "
                            + Long.toUnsignedString(dims[d]));
                }
                if (dims[d] != 0 && elems > Long.MAX_VALUE / dims[d]) {
                    throw error(dAt, "tensor '" + name + "' has more than 2^63 values");
                }
                elems *= dims[d];
            }
            long typeAt = pos;
            int typeId = u32();
            GgmlType type = GgmlType.ofId(Integer.toUnsignedLong(typeId));
            if (type == null) {
                throw error(typeAt, "tensor '" + name + "' has type id " + Integer.toUnsignedString(typeId)
                        + ", which RLX does not read (it reads " + java.util.Arrays.toString(GgmlType.values())
                        + ")");
            }
            long row = nDims == 0 ? 1 : dims[0];
            if (row % type.blockElems() != 0) {
                throw error(dimsAt, "tensor '" + name + "' rows of " + row + " values are not a whole number of "
                        + type + " blocks of " + type.blockElems());
            }
            long bytes = type.bytesFor(elems);
            if (bytes < 0) {
                throw error(dimsAt, "tensor '" + name + "' " + type + " size overflows");
            }
            limits.check(Limits.Kind.TENSOR_BYTES, source + " tensor '" + name + "' at byte " + at, bytes);
            long offAt = pos;
            long off = u64();
            if (off < 0 || off % alignment != 0) {
                throw error(offAt, "tensor '" + name + "' data offset " + Long.toUnsignedString(off)
                        + " is not a multiple of the alignment " + alignment);
            }
            names.add(name);
            types.add(type);
            dimsList.add(dims);
            ranges.add(new long[] {off, bytes, offAt});
        }
        long headerEnd = pos;
        limits.check(Limits.Kind.HEADER_BYTES, source + " header", headerEnd);
        long dataStart = (headerEnd + alignment - 1) / alignment * alignment;
        if (tensorCount > 0 && dataStart > size) {
            throw error(headerEnd, "the data section would start at byte " + dataStart + ", past the end ("
                    + size + " bytes)");
        }
        long dataSize = Math.max(0, size - dataStart);
        long total = 0;
        for (int i = 0; i < ranges.size(); i++) {
            long[] r = ranges.get(i);
            if (r[0] > dataSize || r[1] > dataSize - r[0]) {
                throw error(r[2], "tensor '" + names.get(i) + "' data [" + r[0] + ", " + (r[0] + r[1])
                        + ") lies outside the data section of " + dataSize + " bytes (file " + size
                        + " bytes, data from byte " + dataStart + ")");
            }
            total += r[1];
        }
        limits.check(Limits.Kind.WEIGHT_BYTES, source + " tensors", total);
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < ranges.size(); i++) {
            if (ranges.get(i)[1] > 0) {
                order.add(i);
            }
        }
        order.sort(Comparator.comparingLong(i -> ranges.get(i)[0]));
        for (int k = 1; k < order.size(); k++) {
            long[] prev = ranges.get(order.get(k - 1));
            long[] cur = ranges.get(order.get(k));
            if (cur[0] < prev[0] + prev[1]) {
                throw new GgufFormatException(source + ": tensors '" + names.get(order.get(k - 1)) + "' [" + prev[0]
                        + ", " + (prev[0] + prev[1]) + ") and '" + names.get(order.get(k)) + "' [" + cur[0] + ", "
                        + (cur[0] + cur[1]) + ") overlap", -1);
            }
        }
        List<GgufTensor> tensors = new ArrayList<>(names.size());
        for (int i = 0; i < names.size(); i++) {
            long[] r = ranges.get(i);
            MemorySegment data = image.asSlice(dataStart + r[0], r[1]).asReadOnly();
            tensors.add(new GgufTensor(names.get(i), types.get(i), dimsList.get(i), r[0], data));
        }
        return new Parsed(version, alignment, dataStart, new GgufMetadata(kv), tensors);
    }

    /* ---------------- primitive reads, each checked against the image ---------------- */

    private void need(long bytes, String what) {
        if (bytes > size - pos) {
            throw error(pos, what + " needs " + bytes + " bytes but the file ends after " + (size - pos));
        }
    }

    private int u32(long at) {
        return image.get(LE_INT, at);
    }

    private int u32() {
        need(4, "a uint32");
        int v = image.get(LE_INT, pos);
        pos += 4;
        return v;
    }

    private long u64() {
        need(8, "a uint64");
        long v = image.get(LE_LONG, pos);
        pos += 8;
        return v;
    }

    /**
     * Checks a count read at {@code at}: each item takes at least {@code minBytes}, so more items than the bytes
     * left allow is an error before any allocation; the header so far plus that minimum is checked against the
     * header limit.
     */
    private long count(long n, int minBytes, String what, long at) {
        long left = size - pos;
        if (n < 0 || n > left / minBytes) {
            throw error(at, what + " " + Long.toUnsignedString(n) + " needs at least " + minBytes
                    + " bytes each but only " + left + " bytes follow");
        }
        limits.check(Limits.Kind.HEADER_BYTES, source + " " + what + " at byte " + at, pos + n * minBytes);
        return n;
    }

    private GgufValueType valueType(int id, long at, String what) {
        GgufValueType t = GgufValueType.ofId(Integer.toUnsignedLong(id));
        if (t == null) {
            throw error(at, what + " is " + Integer.toUnsignedString(id) + ", not a GGUF value type (0..12)");
        }
        return t;
    }

    private String string(String what) {
        long at = pos;
        long len = u64();
        if (len < 0 || len > size - pos || len > Integer.MAX_VALUE - 8) {
            throw error(at, what + " length " + Long.toUnsignedString(len) + " runs past the end of the file ("
                    + (size - pos) + " bytes left)");
        }
        limits.check(Limits.Kind.HEADER_BYTES, source + " " + what + " at byte " + at, pos + len);
        byte[] b = image.asSlice(pos, len).toArray(JAVA_BYTE);
        try {
            String s = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b)).toString();
            pos += len;
            return s;
        } catch (CharacterCodingException e) {
            throw error(pos, what + " is not valid UTF-8");
        }
    }

    private GgufValue value(GgufValueType type, String what, int depth) {
        long at = pos;
        return switch (type) {
            case UINT8 -> { need(1, what); yield new GgufValue(type, (long) (image.get(JAVA_BYTE, pos++) & 0xFF)); }
            case INT8 -> { need(1, what); yield new GgufValue(type, (long) image.get(JAVA_BYTE, pos++)); }
            case UINT16 -> new GgufValue(type, (long) (i16(what) & 0xFFFF));
            case INT16 -> new GgufValue(type, (long) i16(what));
            case UINT32 -> new GgufValue(type, Integer.toUnsignedLong(u32()));
            case INT32 -> new GgufValue(type, (long) u32());
            case UINT64, INT64 -> new GgufValue(type, u64());
            case FLOAT32 -> new GgufValue(type, Float.intBitsToFloat(u32()));
            case FLOAT64 -> new GgufValue(type, Double.longBitsToDouble(u64()));
            case BOOL -> {
                need(1, what);
                int b = image.get(JAVA_BYTE, pos++);
                if (b != 0 && b != 1) {
                    throw error(at, what + " is a BOOL of value " + b + ", not 0 or 1");
                }
                yield new GgufValue(type, b == 1);
            }
            case STRING -> new GgufValue(type, string(what));
            case ARRAY -> new GgufValue(type, array(what, depth));
        };
    }

    private short i16(String what) {
        need(2, what);
        short v = image.get(LE_SHORT, pos);
        pos += 2;
        return v;
    }

    private GgufArray array(String what, int depth) {
        long typeAt = pos;
        GgufValueType et = valueType(u32(), typeAt, "element type of " + what);
        if (et == GgufValueType.ARRAY && depth + 1 >= MAX_ARRAY_DEPTH) {
            throw error(typeAt, what + " nests arrays deeper than " + MAX_ARRAY_DEPTH);
        }
        long countAt = pos;
        int n = (int) count(u64(), et.minBytes(), what + " element count", countAt);
        if (n > Integer.MAX_VALUE - 8) {
            throw error(countAt, what + " has " + n + " elements, too many for one array");
        }
        Object values = switch (et) {
            case UINT8, INT8 -> {
                byte[] v = image.asSlice(pos, n).toArray(JAVA_BYTE);
                pos += n;
                yield v;
            }
            case UINT16, INT16 -> {
                short[] v = new short[n];
                for (int i = 0; i < n; i++) {
                    v[i] = i16(what);
                }
                yield v;
            }
            case UINT32, INT32 -> {
                int[] v = new int[n];
                for (int i = 0; i < n; i++) {
                    v[i] = u32();
                }
                yield v;
            }
            case UINT64, INT64 -> {
                long[] v = new long[n];
                for (int i = 0; i < n; i++) {
                    v[i] = u64();
                }
                yield v;
            }
            case FLOAT32 -> {
                float[] v = new float[n];
                for (int i = 0; i < n; i++) {
                    v[i] = Float.intBitsToFloat(u32());
                }
                yield v;
            }
            case FLOAT64 -> {
                double[] v = new double[n];
                for (int i = 0; i < n; i++) {
                    v[i] = Double.longBitsToDouble(u64());
                }
                yield v;
            }
            case BOOL -> {
                boolean[] v = new boolean[n];
                for (int i = 0; i < n; i++) {
                    v[i] = (Boolean) value(GgufValueType.BOOL, what + "[" + i + "]", depth).value();
                }
                yield v;
            }
            case STRING -> {
                String[] v = new String[n];
                for (int i = 0; i < n; i++) {
                    v[i] = string(what + "[" + i + "]");
                }
                yield v;
            }
            case ARRAY -> {
                GgufArray[] v = new GgufArray[n];
                for (int i = 0; i < n; i++) {
                    v[i] = array(what + "[" + i + "]", depth + 1);
                }
                yield v;
            }
        };
        return GgufArray.of(et, values);
    }
}
