package dev.rlx.llm.gguf;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Writes GGUF version 3 files (little-endian): metadata in insertion order, then tensor infos, then each tensor's
 * data at the next multiple of the alignment ({@code general.alignment}, 32 unless set). Tensors are given as
 * floats (encoded with {@link GgmlType#encode}), as raw bytes, or as a filler that writes straight into the
 * mapped file, so a model of gigabytes is written without holding it in the heap. RLX's tests and
 * {@code rlx gguf synth} generate their models with it.
 */
public final class GgufWriter {
    private final Map<String, GgufValue> metadata = new LinkedHashMap<>();
    private final List<Entry> tensors = new ArrayList<>();
    private int version = 3;

    private record Entry(String name, GgmlType type, long[] dims, long bytes, Consumer<MemorySegment> fill) {}

    /** The metadata set so far, in order (for tests comparing what was read with what was written). */
    Map<String, GgufValue> metadataForTest() {
        return metadata;
    }

    /** Elements of the array metadata {@code key} set so far (e.g. the generated vocabulary's size). */
    public int arrayLength(String key) {
        GgufValue v = metadata.get(key);
        if (v == null || v.type() != GgufValueType.ARRAY) {
            throw new IllegalArgumentException("no array metadata '" + key + "'");
        }
        return ((GgufArray) v.value()).size();
    }

    /** Writes version 2 instead of 3 (the two differ only in their version field for little-endian files). */
    public GgufWriter version(int v) {
        if (v != 2 && v != 3) {
            throw new IllegalArgumentException("GGUF version " + v + " (2 or 3)");
        }
        version = v;
        return this;
    }

    public GgufWriter put(String key, GgufValue value) {
        if (metadata.putIfAbsent(key, value) != null) {
            throw new IllegalArgumentException("metadata key '" + key + "' set twice");
        }
        return this;
    }

    public GgufWriter putString(String key, String v) {
        return put(key, GgufValue.ofString(v));
    }

    public GgufWriter putU32(String key, long v) {
        return put(key, GgufValue.ofU32(v));
    }

    public GgufWriter putF32(String key, float v) {
        return put(key, GgufValue.ofF32(v));
    }

    public GgufWriter putBool(String key, boolean v) {
        return put(key, GgufValue.ofBool(v));
    }

    public GgufWriter putArray(String key, GgufArray a) {
        return put(key, GgufValue.ofArray(a));
    }

    /** A tensor from floats, encoded as {@code type}; {@code dims} in ggml order (row length first). */
    public GgufWriter addTensor(String name, GgmlType type, long[] dims, float[] values) {
        long n = elements(name, type, dims);
        if (n != values.length) {
            throw new IllegalArgumentException("tensor '" + name + "' has " + n + " values but " + values.length
                    + " were given");
        }
        return addTensor(name, type, dims, seg -> type.encode(values, 0, seg, 0, values.length));
    }

    /** A tensor whose bytes are given already encoded. */
    public GgufWriter addRawTensor(String name, GgmlType type, long[] dims, byte[] bytes) {
        long n = elements(name, type, dims);
        if (type.bytesFor(n) != bytes.length) {
            throw new IllegalArgumentException("tensor '" + name + "' needs " + type.bytesFor(n) + " bytes, "
                    + bytes.length + " given");
        }
        return addTensor(name, type, dims, seg -> seg.copyFrom(MemorySegment.ofArray(bytes)));
    }

    /** A tensor whose bytes {@code fill} writes into the segment it is given (exactly the tensor's size). */
    public GgufWriter addTensor(String name, GgmlType type, long[] dims, Consumer<MemorySegment> fill) {
        long n = elements(name, type, dims);
        for (Entry e : tensors) {
            if (e.name.equals(name)) {
                throw new IllegalArgumentException("tensor '" + name + "' added twice");
            }
        }
        tensors.add(new Entry(name, type, dims.clone(), type.bytesFor(n), fill));
        return this;
    }

    private static long elements(String name, GgmlType type, long[] dims) {
        if (dims.length > GgufReader.MAX_DIMS) {
            throw new IllegalArgumentException("tensor '" + name + "' has more than 4 dimensions");
        }
        long n = 1;
        for (long d : dims) {
            if (d < 0) {
                throw new IllegalArgumentException("tensor '" + name + "' has a negative dimension");
            }
            n = Math.multiplyExact(n, d);
        }
        if ((dims.length == 0 ? 1 : dims[0]) % type.blockElems() != 0) {
            throw new IllegalArgumentException("tensor '" + name + "' rows are not whole " + type + " blocks");
        }
        return n;
    }

    private int alignment() {
        GgufValue a = metadata.get("general.alignment");
        return a == null ? GgufReader.DEFAULT_ALIGNMENT : (int) (long) (Long) a.value();
    }

    /** The header (through the padding before the data) and each tensor's data offset. */
    private byte[] header(long[] offsets) {
        Out o = new Out();
        o.u32(GgufReader.MAGIC);
        o.u32(version);
        o.u64(tensors.size());
        o.u64(metadata.size());
        for (Map.Entry<String, GgufValue> e : metadata.entrySet()) {
            o.string(e.getKey());
            o.u32(e.getValue().type().id());
            o.value(e.getValue());
        }
        int align = alignment();
        long off = 0;
        for (int i = 0; i < tensors.size(); i++) {
            Entry t = tensors.get(i);
            o.string(t.name);
            o.u32(t.dims.length);
            for (long d : t.dims) {
                o.u64(d);
            }
            o.u32(t.type.id());
            offsets[i] = off;
            o.u64(off);
            off = (off + t.bytes + align - 1) / align * align;
        }
        while (o.size() % align != 0) {
            o.write(0);
        }
        return o.toByteArray();
    }

    private long write(MemorySegment dst, byte[] header, long[] offsets) {
        dst.asSlice(0, header.length).copyFrom(MemorySegment.ofArray(header));
        for (int i = 0; i < tensors.size(); i++) {
            Entry t = tensors.get(i);
            t.fill.accept(dst.asSlice(header.length + offsets[i], t.bytes));
        }
        return dst.byteSize();
    }

    private long totalBytes(byte[] header, long[] offsets) {
        if (tensors.isEmpty()) {
            return header.length;
        }
        int last = tensors.size() - 1;
        long end = header.length + offsets[last] + tensors.get(last).bytes;
        int align = alignment();
        return (end + align - 1) / align * align;
    }

    /** Writes the file, replacing {@code path}; returns its size in bytes. */
    public long write(Path path) throws IOException {
        long[] offsets = new long[tensors.size()];
        byte[] header = header(offsets);
        long total = totalBytes(header, offsets);
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
             Arena arena = Arena.ofConfined()) {
            MemorySegment m = ch.map(FileChannel.MapMode.READ_WRITE, 0, total, arena);
            write(m, header, offsets);
            m.force();
        }
        return total;
    }

    /** The file's bytes (for small files: tests). */
    public byte[] toBytes() {
        long[] offsets = new long[tensors.size()];
        byte[] header = header(offsets);
        long total = totalBytes(header, offsets);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(total);
            write(m, header, offsets);
            return m.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        }
    }

    /** A little-endian byte sink. */
    private static final class Out extends ByteArrayOutputStream {
        private final ByteBuffer buf = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);

        void u32(long v) {
            buf.clear();
            buf.putInt((int) v);
            write(buf.array(), 0, 4);
        }

        void u64(long v) {
            buf.clear();
            buf.putLong(v);
            write(buf.array(), 0, 8);
        }

        void u16(long v) {
            buf.clear();
            buf.putShort((short) v);
            write(buf.array(), 0, 2);
        }

        void string(String s) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            u64(b.length);
            write(b, 0, b.length);
        }

        void value(GgufValue v) {
            Object x = v.value();
            switch (v.type()) {
                case UINT8, INT8 -> write((int) (long) (Long) x);
                case UINT16, INT16 -> u16((Long) x);
                case UINT32, INT32 -> u32((Long) x);
                case UINT64, INT64 -> u64((Long) x);
                case FLOAT32 -> u32(Float.floatToRawIntBits((Float) x));
                case FLOAT64 -> u64(Double.doubleToRawLongBits((Double) x));
                case BOOL -> write((Boolean) x ? 1 : 0);
                case STRING -> string((String) x);
                case ARRAY -> array((GgufArray) x);
            }
        }

        void array(GgufArray a) {
            u32(a.elementType().id());
            u64(a.size());
            Object vs = a.values();
            for (int i = 0; i < a.size(); i++) {
                switch (a.elementType()) {
                    case UINT8, INT8 -> write(((byte[]) vs)[i]);
                    case UINT16, INT16 -> u16(((short[]) vs)[i]);
                    case UINT32, INT32 -> u32(((int[]) vs)[i]);
                    case UINT64, INT64 -> u64(((long[]) vs)[i]);
                    case FLOAT32 -> u32(Float.floatToRawIntBits(((float[]) vs)[i]));
                    case FLOAT64 -> u64(Double.doubleToRawLongBits(((double[]) vs)[i]));
                    case BOOL -> write(((boolean[]) vs)[i] ? 1 : 0);
                    case STRING -> string(((String[]) vs)[i]);
                    case ARRAY -> array(((GgufArray[]) vs)[i]);
                }
            }
        }
    }
}
