package dev.rlx.runtime.weights;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import dev.rlx.ir.DType;
import dev.rlx.ir.RlxException;
import dev.rlx.ir.Shape;
import dev.rlx.ir.limits.Limits;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a <a href="https://github.com/huggingface/safetensors">safetensors</a> file by mapping it: tensors are
 * read-only slices of the mapping, nothing is copied until a param is set.
 *
 * <p>The file is untrusted. The header length, every dtype, shape and data offset are checked against the
 * file: offsets must lie inside the data section, match the shape's byte size and not overlap. Any problem
 * is a {@link WeightFormatException} naming the file, the tensor and the offsets.
 */
public final class SafetensorsLoader implements WeightLoader {
    /** The reference implementation's limit on the JSON header. */
    static final long MAX_HEADER_BYTES = 100L << 20;

    // Field names are neither canonicalised nor interned: a header names each tensor once, and a symbol table
    // (or String.intern) of a million distinct names costs more than the parse.
    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(8).build())
            .disable(JsonFactory.Feature.CANONICALIZE_FIELD_NAMES).disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
            .build();

    private final Path path;
    private final Arena arena;
    private final MemorySegment data;
    private final Map<String, Entry> tensors;
    private final Map<String, String> metadata;

    private SafetensorsLoader(Path path, Arena arena, MemorySegment data, Map<String, Entry> tensors,
                              Map<String, String> metadata) {
        this.path = path;
        this.arena = arena;
        this.data = data;
        this.tensors = tensors;
        this.metadata = metadata;
    }

    /** Maps and validates {@code path} within {@link Limits#defaults()}. */
    public static SafetensorsLoader open(Path path) {
        return open(path, Limits.defaults());
    }

    /**
     * Maps and validates {@code path}: the header's length and tensor count are checked against {@code limits}
     * ({@link Limits.Kind#HEADER_BYTES}, {@link Limits.Kind#TENSOR_COUNT}, the data against
     * {@link Limits.Kind#WEIGHT_BYTES}) before the header is copied or as it is read.
     */
    public static SafetensorsLoader open(Path path, Limits limits) {
        Arena arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            long size = ch.size();
            MemorySegment file = size == 0 ? MemorySegment.NULL : ch.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
            SafetensorsLoader l = parse(path, arena, file, size, limits);
            return l;
        } catch (IOException e) {
            arena.close();
            throw new WeightFormatException(path + ": cannot read: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    private static SafetensorsLoader parse(Path path, Arena arena, MemorySegment file, long size, Limits limits) {
        if (size < 8) {
            throw new WeightFormatException(path + ": " + size + " bytes is too short for a safetensors header (8-byte length)");
        }
        long headerLen = file.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 0);
        if (headerLen < 2 || headerLen > MAX_HEADER_BYTES || headerLen > size - 8) {
            throw new WeightFormatException(path + ": header length " + headerLen + " at offset 0 is invalid (file has "
                    + size + " bytes, limit " + MAX_HEADER_BYTES + ")");
        }
        limits.check(Limits.Kind.HEADER_BYTES, path + ": safetensors header", headerLen);
        long dataStart = 8 + headerLen;
        long dataSize = size - dataStart;
        limits.check(Limits.Kind.WEIGHT_BYTES, path + ": safetensors data", dataSize);
        byte[] header = file.asSlice(8, headerLen).toArray(ValueLayout.JAVA_BYTE);

        // One pass over the header, one small record per tensor (no boxed lists, no message strings built
        // unless there is an error), one sort by offset: time and memory linear in the header (n log n sort).
        List<Entry> entries = new ArrayList<>();
        Map<String, Entry> byName = new HashMap<>();
        Map<String, String> metadata = new LinkedHashMap<>();
        try (JsonParser p = JSON.createParser(header)) {
            expect(path, p, p.nextToken(), JsonToken.START_OBJECT, "the header");
            boolean sawMetadata = false;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                if (name.equals("__metadata__")) {
                    if (sawMetadata) {
                        throw new WeightFormatException(path + ": tensor '" + name + "' appears twice in the header");
                    }
                    sawMetadata = true;
                    readMetadata(path, p, metadata);
                    continue;
                }
                limits.check(Limits.Kind.TENSOR_COUNT, path + ": safetensors header", entries.size() + 1L);
                Entry e = readEntry(path, p, name, dataSize);
                if (byName.putIfAbsent(name, e) != null) {
                    throw new WeightFormatException(path + ": tensor '" + name + "' appears twice in the header");
                }
                entries.add(e);
            }
            if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
                throw new WeightFormatException(path + ": the header is not a single JSON object");
            }
        } catch (IOException e) {
            throw new WeightFormatException(path + ": header is not valid JSON: " + e.getMessage(), e);
        }

        // Empty tensors occupy no bytes, so they overlap nothing (writers give them the next tensor's begin).
        Entry[] byOffset = entries.stream().filter(e -> e.begin != e.end).toArray(Entry[]::new);
        Arrays.sort(byOffset, Comparator.comparingLong(e -> e.begin));
        for (int i = 1; i < byOffset.length; i++) {
            Entry prev = byOffset[i - 1];
            Entry cur = byOffset[i];
            if (cur.begin < prev.end) {
                throw new WeightFormatException(path + ": tensors '" + prev.name + "' [" + prev.begin + ", " + prev.end
                        + ") and '" + cur.name + "' [" + cur.begin + ", " + cur.end + ") overlap");
            }
        }
        Map<String, Entry> tensors = LinkedHashMap.newLinkedHashMap(entries.size());
        for (Entry e : entries) {
            tensors.put(e.name, e);
        }
        return new SafetensorsLoader(path, arena, file.asSlice(dataStart).asReadOnly(), tensors, metadata);
    }

    /** One header entry, checked. */
    private record Entry(String name, Shape shape, long begin, long end) {}

    private static void readMetadata(Path path, JsonParser p, Map<String, String> metadata) throws IOException {
        expect(path, p, p.nextToken(), JsonToken.START_OBJECT, "__metadata__");
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String k = p.currentName();
            expect(path, p, p.nextToken(), JsonToken.VALUE_STRING, "__metadata__." + k);
            metadata.put(k, p.getText());
        }
    }

    private static Entry readEntry(Path path, JsonParser p, String name, long dataSize) throws IOException {
        expect(path, p, p.nextToken(), JsonToken.START_OBJECT, name, "");
        String dtype = null;
        long[] dims = null;
        long[] range = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            JsonToken t = p.nextToken();
            switch (key) {
                case "dtype" -> {
                    expect(path, p, t, JsonToken.VALUE_STRING, name, " dtype");
                    dtype = p.getText();
                }
                case "shape" -> dims = longs(path, p, t, name, " shape");
                case "data_offsets" -> range = longs(path, p, t, name, " data_offsets");
                default -> p.skipChildren(); // unknown keys are ignored, as the reference reader does
            }
        }
        String where = "tensor '" + name + "'";
        if (dtype == null || dims == null || range == null) {
            throw new WeightFormatException(path + ": " + where + " lacks dtype, shape or data_offsets");
        }
        DType dt = dtype(path, where, dtype);
        int[] d = new int[dims.length];
        for (int i = 0; i < d.length; i++) {
            if (dims[i] < 0 || dims[i] > Integer.MAX_VALUE) {
                throw new WeightFormatException(path + ": " + where + " has invalid dimension " + dims[i]);
            }
            d[i] = (int) dims[i];
        }
        Shape shape;
        try {
            shape = Shape.of(dt, d);
        } catch (RlxException e) {
            throw new WeightFormatException(path + ": " + where + ": " + e.getMessage(), e);
        }
        if (range.length != 2) {
            throw new WeightFormatException(path + ": " + where + " data_offsets must have 2 entries but has " + range.length);
        }
        long begin = range[0];
        long end = range[1];
        if (begin < 0 || end < begin || end > dataSize) {
            throw new WeightFormatException(path + ": " + where + " data_offsets [" + begin + ", " + end
                    + ") lie outside the data section of " + dataSize + " bytes");
        }
        if (end - begin != shape.byteSize()) {
            throw new WeightFormatException(path + ": " + where + " " + shape + " needs " + shape.byteSize()
                    + " bytes but data_offsets [" + begin + ", " + end + ") span " + (end - begin));
        }
        return new Entry(name, shape, begin, end);
    }

    /** A JSON array of at most 64 integers. */
    private static long[] longs(Path path, JsonParser p, JsonToken t, String name, String field) throws IOException {
        expect(path, p, t, JsonToken.START_ARRAY, name, field);
        long[] out = new long[4];
        int n = 0;
        while (p.nextToken() == JsonToken.VALUE_NUMBER_INT) {
            if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                throw new WeightFormatException(path + ": tensor '" + name + "'" + field + " holds a number too large: "
                        + p.getText());
            }
            if (n == 64) {
                throw new WeightFormatException(path + ": tensor '" + name + "'" + field + " has more than 64 entries");
            }
            if (n == out.length) {
                out = Arrays.copyOf(out, 2 * n);
            }
            out[n++] = p.getLongValue();
        }
        expect(path, p, p.currentToken(), JsonToken.END_ARRAY, name, field);
        return Arrays.copyOf(out, n);
    }

    /** {@link #expect(Path, JsonParser, JsonToken, JsonToken, String)} naming {@code tensor 'name'field}, built only on error. */
    private static void expect(Path path, JsonParser p, JsonToken actual, JsonToken expected, String name, String field) {
        if (actual != expected) {
            expect(path, p, actual, expected, "tensor '" + name + "'" + field);
        }
    }

    private static void expect(Path path, JsonParser p, JsonToken actual, JsonToken expected, String where) {
        if (actual != expected) {
            throw new WeightFormatException(path + ": " + where + " at header byte " + p.currentLocation().getCharOffset()
                    + ": expected " + expected + " but found " + actual);
        }
    }

    private static DType dtype(Path path, String where, String s) {
        return switch (s) {
            case "F64" -> DType.F64;
            case "F32" -> DType.F32;
            case "F16" -> DType.F16;
            case "BF16" -> DType.BF16;
            case "I64" -> DType.I64;
            case "I32" -> DType.I32;
            case "I16" -> DType.I16;
            case "I8" -> DType.I8;
            case "U8" -> DType.U8;
            case "U32" -> DType.U32;
            case "BOOL" -> DType.BOOL;
            default -> throw new WeightFormatException(path + ": " + where + " has unsupported dtype '" + s + "'");
        };
    }

    /** The safetensors dtype name of {@code t}. */
    static String dtypeName(DType t) {
        return t == DType.BOOL ? "BOOL" : t.name();
    }

    public Path path() {
        return path;
    }

    /** The free-form {@code __metadata__} strings. */
    public Map<String, String> metadata() {
        return Map.copyOf(metadata);
    }

    @Override
    public List<String> names() {
        return List.copyOf(tensors.keySet());
    }

    @Override
    public Optional<WeightTensor> tensor(String name) {
        Entry e = tensors.get(name);
        // The slice is made on request: a header of a million tensors costs one small record each.
        return e == null ? Optional.empty()
                : Optional.of(new WeightTensor(name, e.shape, data.asSlice(e.begin, e.end - e.begin)));
    }

    /** Unmaps the file; tensors from this loader must not be used afterwards. */
    @Override
    public void close() {
        arena.close();
    }
}
