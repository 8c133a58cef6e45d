package dev.rlx.llm.kv;

import dev.rlx.llm.kv.KvCacheException.Reason;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/**
 * The file behind a spilling {@link PagedKvCache}: a 4 KiB header, then the file-resident blocks of layer 0,
 * layer 1, ... (each layer {@code fileBlocks * blockBytes(layer)} bytes), mapped read-write into the cache's
 * arena. The header (little-endian) lets a reopened or mistaken file be recognised before any byte of it is
 * used:
 * <pre>
 *   0  8  magic "RLXKVSPL"        28  4  tokensPerBlock
 *   8  4  version (1)             32  4  fileBlocks
 *  12  4  data offset (4096)      36  4  0
 *  16  4  layers                  40  8  data bytes
 *  20  4  kvHeads                 48  8  FNV-1a of the per-layer storage names
 *  24  4  headDim                 56 ..  zero up to the data offset
 * </pre>
 * The file is locked for the life of the cache, so a second cache cannot map it. The lock is advisory: a
 * process that truncates the file while it is mapped makes later accesses fault, which no header can prevent.
 */
final class SpillFile implements AutoCloseable {
    static final int HEADER_BYTES = 4096;
    static final int VERSION = 1;
    private static final byte[] MAGIC = "RLXKVSPL".getBytes(StandardCharsets.US_ASCII);
    private static final int FIELDS_BYTES = 56;

    private final Path path;
    private final FileChannel channel;
    private final FileLock lock;
    private final MemorySegment data; // (sum over layers of fileBlocks * blockBytes) bytes

    private SpillFile(Path path, FileChannel channel, FileLock lock, MemorySegment data) {
        this.path = path;
        this.channel = channel;
        this.lock = lock;
        this.data = data;
    }

    /** Creates or opens the file named by {@code config.spill()} and maps its data region into {@code arena}. */
    static SpillFile open(KvCacheConfig config, Arena arena) {
        KvCacheConfig.Spill spill = config.spill();
        Path path = spill.file();
        ByteBuffer expected = header(config);
        long dataBytes = expected.getLong(40);
        FileChannel ch = null;
        try {
            if (spill.mode() == KvCacheConfig.Spill.Mode.OPEN) {
                if (!Files.exists(path)) {
                    throw error(Reason.SPILL_MISSING, path, "does not exist (mode OPEN needs an existing spill file)");
                }
                ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
                FileLock lock = lock(ch, path);
                validate(ch, path, expected, dataBytes);
                return new SpillFile(path, ch, lock, map(ch, dataBytes, arena));
            }
            ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE, StandardOpenOption.CREATE);
            FileLock lock = lock(ch, path);
            if (ch.size() > 0 && !startsWithMagic(ch)) {
                throw error(Reason.SPILL_FOREIGN, path,
                        "exists and is not an RLX KV spill file; refusing to overwrite it");
            }
            ch.truncate(0);
            ch.write(expected.rewind(), 0);
            // Sparse on most file systems: the OS allocates pages as blocks are first written.
            ch.write(ByteBuffer.allocate(1), HEADER_BYTES + dataBytes - 1);
            return new SpillFile(path, ch, lock, map(ch, dataBytes, arena));
        } catch (IOException e) {
            closeQuietly(ch);
            throw new KvCacheException(Reason.SPILL_IO, "[spill] " + path + ": " + e, e);
        } catch (RuntimeException e) {
            closeQuietly(ch);
            throw e;
        }
    }

    /** The mapped data region. */
    MemorySegment data() {
        return data;
    }

    Path path() {
        return path;
    }

    /** Flushes dirty pages to the file (not needed for correctness; a cache's spill contents are scratch). */
    void force() {
        if (data.byteSize() > 0) {
            data.force();
        }
    }

    @Override
    public void close() {
        try {
            if (lock.isValid()) {
                lock.release();
            }
            channel.close();
        } catch (IOException e) {
            throw new KvCacheException(Reason.SPILL_IO, "[spill] " + path + ": closing: " + e, e);
        }
    }

    /** The header this geometry writes; also what a file opened for it must hold. */
    static ByteBuffer header(KvCacheConfig c) {
        long dataBytes = 0;
        for (int l = 0; l < c.layers(); l++) {
            dataBytes += (long) c.fileBlocks() * c.blockBytes(l);
        }
        ByteBuffer h = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        h.put(0, MAGIC);
        h.putInt(8, VERSION);
        h.putInt(12, HEADER_BYTES);
        h.putInt(16, c.layers());
        h.putInt(20, c.kvHeads());
        h.putInt(24, c.headDim());
        h.putInt(28, c.tokensPerBlock());
        h.putInt(32, c.fileBlocks());
        h.putLong(40, dataBytes);
        h.putLong(48, storageFingerprint(c));
        return h;
    }

    private static void validate(FileChannel ch, Path path, ByteBuffer expected, long dataBytes) throws IOException {
        long size = ch.size();
        ByteBuffer found = ByteBuffer.allocate(FIELDS_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        ch.read(found, 0);
        if (size < MAGIC.length || !found.slice(0, MAGIC.length).equals(ByteBuffer.wrap(MAGIC))) {
            throw error(Reason.SPILL_FOREIGN, path, "is not an RLX KV spill file (no RLXKVSPL magic at offset 0)");
        }
        if (size < FIELDS_BYTES) {
            throw error(Reason.SPILL_TRUNCATED, path, String.format(Locale.ROOT,
                    "is %d bytes, shorter than the %d-byte header fields", size, FIELDS_BYTES));
        }
        int version = found.getInt(8);
        if (version != VERSION || found.getInt(12) != HEADER_BYTES) {
            throw error(Reason.SPILL_FOREIGN, path, String.format(Locale.ROOT,
                    "has version %d and data offset %d; this build reads version %d at %d", version,
                    found.getInt(12), VERSION, HEADER_BYTES));
        }
        String[] names = {"layers", "kvHeads", "headDim", "tokensPerBlock", "fileBlocks"};
        for (int i = 0; i < names.length; i++) {
            int at = 16 + 4 * i;
            if (found.getInt(at) != expected.getInt(at)) {
                throw mismatch(path, names[i], at, expected.getInt(at), found.getInt(at));
            }
        }
        if (found.getLong(40) != dataBytes) {
            throw mismatch(path, "data bytes", 40, dataBytes, found.getLong(40));
        }
        if (found.getLong(48) != expected.getLong(48)) {
            throw error(Reason.SPILL_MISMATCH, path, "was written for different per-layer storage types "
                    + "(storage fingerprint at offset 48 differs)");
        }
        long needed = HEADER_BYTES + dataBytes;
        if (size < needed) {
            throw error(Reason.SPILL_TRUNCATED, path, String.format(Locale.ROOT,
                    "is %d bytes but its header needs %d (data of %d bytes at offset %d)", size, needed, dataBytes,
                    HEADER_BYTES));
        }
    }

    private static boolean startsWithMagic(FileChannel ch) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(MAGIC.length);
        ch.read(b, 0);
        return b.flip().equals(ByteBuffer.wrap(MAGIC));
    }

    private static FileLock lock(FileChannel ch, Path path) throws IOException {
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            throw error(Reason.SPILL_IO, path, "is locked by another KV cache");
        }
        return lock;
    }

    private static MemorySegment map(FileChannel ch, long dataBytes, Arena arena) throws IOException {
        return dataBytes == 0 ? MemorySegment.ofArray(new byte[0])
                : ch.map(FileChannel.MapMode.READ_WRITE, HEADER_BYTES, dataBytes, arena);
    }

    private static long storageFingerprint(KvCacheConfig c) {
        long h = 0xcbf29ce484222325L;
        for (KvStorage s : c.layerStorage()) {
            for (byte b : (s.name() + ";").getBytes(StandardCharsets.US_ASCII)) {
                h = (h ^ (b & 0xFF)) * 0x100000001b3L;
            }
        }
        return h;
    }

    private static KvCacheException mismatch(Path path, String field, int offset, long expected, long found) {
        return error(Reason.SPILL_MISMATCH, path, String.format(Locale.ROOT,
                "has %s %d at offset %d but this cache needs %d", field, found, offset, expected));
    }

    private static KvCacheException error(Reason reason, Path path, String what) {
        return new KvCacheException(reason, "[spill] " + path + " " + what);
    }

    private static void closeQuietly(FileChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // the original error is the one to report
            }
        }
    }
}
