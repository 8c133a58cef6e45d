package dev.rlx.llm.gguf;

import dev.rlx.ir.limits.Limits;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A GGUF file, memory-mapped and validated ({@link GgufReader} says what is checked): its metadata and tensors,
 * whose data are read-only slices of the mapping. Closing unmaps the file; tensors must not be used after.
 */
public final class GgufFile implements AutoCloseable {
    private final String source;
    private final Arena arena;
    private final GgufReader.Parsed parsed;
    private final Map<String, GgufTensor> byName;
    private final long fileBytes;

    private GgufFile(String source, Arena arena, GgufReader.Parsed parsed, long fileBytes) {
        this.source = source;
        this.arena = arena;
        this.parsed = parsed;
        this.fileBytes = fileBytes;
        Map<String, GgufTensor> m = new LinkedHashMap<>();
        for (GgufTensor t : parsed.tensors()) {
            m.put(t.name(), t);
        }
        this.byName = Collections.unmodifiableMap(m);
    }

    /** Maps and validates {@code path} under the process-wide limits. */
    public static GgufFile open(Path path) {
        return open(path, Limits.defaults());
    }

    public static GgufFile open(Path path, Limits limits) {
        Arena arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            long size = ch.size();
            MemorySegment image = size == 0 ? MemorySegment.NULL
                    : nativeView(ch.map(FileChannel.MapMode.READ_ONLY, 0, size, arena), arena);
            return new GgufFile(path.toString(), arena, GgufReader.parse(image, path.toString(), limits), size);
        } catch (IOException e) {
            arena.close();
            throw new GgufFormatException(path + ": cannot read: " + e.getMessage(), -1, e);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /**
     * The mapping as a plain native segment over the same pages, in the same arena (closing it still unmaps).
     * Kernels read weights with the Vector API, whose loads are profiled by segment class: a mapped segment beside
     * the arenas' native ones made every load site polymorphic, and a Q8_0 matmul over the mapped weights ran about
     * 6x slower than over native memory.
     */
    private static MemorySegment nativeView(MemorySegment mapped, Arena arena) {
        return MemorySegment.ofAddress(mapped.address()).reinterpret(mapped.byteSize(), arena, null).asReadOnly();
    }

    /** Validates a GGUF image already in memory (a test's bytes, a download); the segment must outlive this. */
    public static GgufFile parse(MemorySegment image, String source, Limits limits) {
        return new GgufFile(source, null, GgufReader.parse(image, source, limits), image.byteSize());
    }

    public String source() {
        return source;
    }

    /** 2 or 3. */
    public int version() {
        return parsed.version();
    }

    public int alignment() {
        return parsed.alignment();
    }

    /** Byte offset of the data section. */
    public long dataStart() {
        return parsed.dataStart();
    }

    public long fileBytes() {
        return fileBytes;
    }

    public GgufMetadata metadata() {
        return parsed.metadata();
    }

    /** The tensors in file order. */
    public List<GgufTensor> tensors() {
        return parsed.tensors();
    }

    /** The tensor named {@code name}, or null. */
    public GgufTensor find(String name) {
        return byName.get(name);
    }

    /** The tensor named {@code name}; a missing one is an error naming the file. */
    public GgufTensor tensor(String name) {
        GgufTensor t = byName.get(name);
        if (t == null) {
            throw new GgufFormatException(source + ": has no tensor '" + name + "'", -1);
        }
        return t;
    }

    @Override
    public void close() {
        if (arena != null) {
            arena.close();
        }
    }
}
