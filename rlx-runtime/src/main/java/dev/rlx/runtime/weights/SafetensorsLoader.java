package dev.rlx.runtime.weights;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import dev.rlx.ir.DType;
import dev.rlx.ir.RlxException;
import dev.rlx.ir.Shape;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
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

    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(8).build()).build();

    private final Path path;
    private final Arena arena;
    private final Map<String, WeightTensor> tensors;
    private final Map<String, String> metadata;

    private SafetensorsLoader(Path path, Arena arena, Map<String, WeightTensor> tensors, Map<String, String> metadata) {
        this.path = path;
        this.arena = arena;
        this.tensors = tensors;
        this.metadata = metadata;
    }

    /** Maps and validates {@code path}. */
    public static SafetensorsLoader open(Path path) {
        Arena arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            long size = ch.size();
            MemorySegment file = size == 0 ? MemorySegment.NULL : ch.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
            SafetensorsLoader l = parse(path, arena, file, size);
            return l;
        } catch (IOException e) {
            arena.close();
            throw new WeightFormatException(path + ": cannot read: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    private static SafetensorsLoader parse(Path path, Arena arena, MemorySegment file, long size) {
        if (size < 8) {
            throw new WeightFormatException(path + ": " + size + " bytes is too short for a safetensors header (8-byte length)");
        }
        long headerLen = file.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 0);
        if (headerLen < 2 || headerLen > MAX_HEADER_BYTES || headerLen > size - 8) {
            throw new WeightFormatException(path + ": header length " + headerLen + " at offset 0 is invalid (file has "
                    + size + " bytes, limit " + MAX_HEADER_BYTES + ")");
        }
        byte[] header = file.asSlice(8, headerLen).toArray(ValueLayout.JAVA_BYTE);
        long dataStart = 8 + headerLen;
        long dataSize = size - dataStart;

        Map<String, long[]> offsets = new LinkedHashMap<>();
        Map<String, Shape> shapes = new LinkedHashMap<>();
        Map<String, String> metadata = new LinkedHashMap<>();
        try (JsonParser p = JSON.createParser(new String(header, StandardCharsets.UTF_8))) {
            expect(path, p, p.nextToken(), JsonToken.START_OBJECT, "the header");
            boolean sawMetadata = false;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                if (shapes.containsKey(name) || (name.equals("__metadata__") && sawMetadata)) {
                    throw new WeightFormatException(path + ": tensor '" + name + "' appears twice in the header");
                }
                if (name.equals("__metadata__")) {
                    sawMetadata = true;
                    readMetadata(path, p, metadata);
                } else {
                    readEntry(path, p, name, shapes, offsets, dataSize);
                }
            }
            if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
                throw new WeightFormatException(path + ": the header is not a single JSON object");
            }
        } catch (IOException e) {
            throw new WeightFormatException(path + ": header is not valid JSON: " + e.getMessage(), e);
        }

        // Empty tensors occupy no bytes, so they overlap nothing (writers give them the next tensor's begin).
        List<String> byOffset = new ArrayList<>(offsets.keySet());
        byOffset.removeIf(n -> offsets.get(n)[0] == offsets.get(n)[1]);
        byOffset.sort(Comparator.comparingLong(n -> offsets.get(n)[0]));
        for (int i = 1; i < byOffset.size(); i++) {
            long[] prev = offsets.get(byOffset.get(i - 1));
            long[] cur = offsets.get(byOffset.get(i));
            if (cur[0] < prev[1]) {
                throw new WeightFormatException(path + ": tensors '" + byOffset.get(i - 1) + "' [" + prev[0] + ", " + prev[1]
                        + ") and '" + byOffset.get(i) + "' [" + cur[0] + ", " + cur[1] + ") overlap");
            }
        }
        Map<String, WeightTensor> tensors = new LinkedHashMap<>();
        for (Map.Entry<String, Shape> e : shapes.entrySet()) {
            long[] o = offsets.get(e.getKey());
            MemorySegment data = file.asSlice(dataStart + o[0], o[1] - o[0]).asReadOnly();
            tensors.put(e.getKey(), new WeightTensor(e.getKey(), e.getValue(), data));
        }
        return new SafetensorsLoader(path, arena, tensors, metadata);
    }

    private static void readMetadata(Path path, JsonParser p, Map<String, String> metadata) throws IOException {
        expect(path, p, p.nextToken(), JsonToken.START_OBJECT, "__metadata__");
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String k = p.currentName();
            expect(path, p, p.nextToken(), JsonToken.VALUE_STRING, "__metadata__." + k);
            metadata.put(k, p.getText());
        }
    }

    private static void readEntry(Path path, JsonParser p, String name, Map<String, Shape> shapes,
                                  Map<String, long[]> offsets, long dataSize) throws IOException {
        String where = "tensor '" + name + "'";
        expect(path, p, p.nextToken(), JsonToken.START_OBJECT, where);
        String dtype = null;
        List<Long> dims = null;
        List<Long> range = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            JsonToken t = p.nextToken();
            switch (key) {
                case "dtype" -> {
                    expect(path, p, t, JsonToken.VALUE_STRING, where + " dtype");
                    dtype = p.getText();
                }
                case "shape" -> dims = longs(path, p, t, where + " shape");
                case "data_offsets" -> range = longs(path, p, t, where + " data_offsets");
                default -> p.skipChildren(); // unknown keys are ignored, as the reference reader does
            }
        }
        if (dtype == null || dims == null || range == null) {
            throw new WeightFormatException(path + ": " + where + " lacks dtype, shape or data_offsets");
        }
        DType dt = dtype(path, where, dtype);
        int[] d = new int[dims.size()];
        for (int i = 0; i < d.length; i++) {
            if (dims.get(i) < 0 || dims.get(i) > Integer.MAX_VALUE) {
                throw new WeightFormatException(path + ": " + where + " has invalid dimension " + dims.get(i));
            }
            d[i] = (int) (long) dims.get(i);
        }
        Shape shape;
        try {
            shape = Shape.of(dt, d);
        } catch (RlxException e) {
            throw new WeightFormatException(path + ": " + where + ": " + e.getMessage(), e);
        }
        if (range.size() != 2) {
            throw new WeightFormatException(path + ": " + where + " data_offsets must have 2 entries but has " + range.size());
        }
        long begin = range.get(0);
        long end = range.get(1);
        if (begin < 0 || end < begin || end > dataSize) {
            throw new WeightFormatException(path + ": " + where + " data_offsets [" + begin + ", " + end
                    + ") lie outside the data section of " + dataSize + " bytes");
        }
        if (end - begin != shape.byteSize()) {
            throw new WeightFormatException(path + ": " + where + " " + shape + " needs " + shape.byteSize()
                    + " bytes but data_offsets [" + begin + ", " + end + ") span " + (end - begin));
        }
        shapes.put(name, shape);
        offsets.put(name, new long[] {begin, end});
    }

    private static List<Long> longs(Path path, JsonParser p, JsonToken t, String where) throws IOException {
        expect(path, p, t, JsonToken.START_ARRAY, where);
        List<Long> out = new ArrayList<>();
        while (p.nextToken() == JsonToken.VALUE_NUMBER_INT) {
            if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                throw new WeightFormatException(path + ": " + where + " holds a number too large: " + p.getText());
            }
            out.add(p.getLongValue());
            if (out.size() > 64) {
                throw new WeightFormatException(path + ": " + where + " has more than 64 entries");
            }
        }
        expect(path, p, p.currentToken(), JsonToken.END_ARRAY, where);
        return out;
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
        return Optional.ofNullable(tensors.get(name));
    }

    /** Unmaps the file; tensors from this loader must not be used afterwards. */
    @Override
    public void close() {
        arena.close();
    }
}
