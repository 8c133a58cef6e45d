package dev.rlx.runtime;

import dev.rlx.ir.Graph;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Compiled programs keyed by graph fingerprint, precision policy and every other compile option, device,
 * backend and RLX version. A hit skips verification, passes and planning: only kernels and an arena are
 * built, so each {@link CompiledGraph} handed out is still independent. Concurrent compiles of one graph
 * compile it once; the others wait for it. Least recently used entries are evicted past the capacity.
 *
 * <p>With a directory, programs also persist on disk ({@link ProgramFile}), so a second process skips the
 * passes too; an entry that is missing, stale (another RLX version or format) or corrupt (checksum) is
 * recompiled and rewritten, never trusted. Thread-safe.
 */
public final class CompileCache {
    private static final System.Logger LOG = System.getLogger(CompileCache.class.getName());
    private static volatile CompileCache shared;

    private final int capacity;
    private final Path dir;
    private final LinkedHashMap<String, CompletableFuture<Program>> entries = new LinkedHashMap<>(16, 0.75f, true);
    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong misses = new AtomicLong();
    private final AtomicLong diskHits = new AtomicLong();

    /** An in-memory cache of up to {@code capacity} programs. */
    public CompileCache(int capacity) {
        this(capacity, null);
    }

    /** A cache of up to {@code capacity} programs in memory, persisted under {@code dir} (null: none). */
    public CompileCache(int capacity, Path dir) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1 but is " + capacity);
        }
        this.capacity = capacity;
        this.dir = dir;
    }

    /**
     * The process-wide cache sessions use by default: 64 programs in memory, and on disk under
     * {@code RLX_CACHE_DIR} when that is set ({@code RLX_CACHE_DIR=default} means {@link #defaultDirectory}).
     */
    public static CompileCache shared() {
        CompileCache c = shared;
        if (c == null) {
            synchronized (CompileCache.class) {
                if (shared == null) {
                    String d = Rlx.setting("RLX_CACHE_DIR");
                    Path dir = d == null || d.isBlank() ? null : d.equals("default") ? defaultDirectory() : Path.of(d);
                    shared = new CompileCache(64, dir);
                }
                c = shared;
            }
        }
        return c;
    }

    /**
     * {@code RLX_CACHE_DIR} if set, else the user cache folder: {@code $XDG_CACHE_HOME/rlx} or
     * {@code ~/.cache/rlx} on Linux, {@code ~/Library/Caches/rlx} on macOS, {@code %LOCALAPPDATA%\rlx\cache}
     * on Windows.
     */
    public static Path defaultDirectory() {
        String d = Rlx.setting("RLX_CACHE_DIR");
        if (d != null && !d.isBlank() && !d.equals("default")) {
            return Path.of(d);
        }
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String home = System.getProperty("user.home");
        if (os.contains("mac")) {
            return Path.of(home, "Library", "Caches", "rlx");
        }
        if (os.contains("win") && System.getenv("LOCALAPPDATA") != null) {
            return Path.of(System.getenv("LOCALAPPDATA"), "rlx", "cache");
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        return xdg != null && !xdg.isBlank() ? Path.of(xdg, "rlx") : Path.of(home, ".cache", "rlx");
    }

    /** The program of {@code g} for {@code session}'s backend: the cached one when the key matches, else prepared. */
    Program program(Session session, Graph g, CompileOptions options) {
        String key = key(session, g, options);
        CompletableFuture<Program> future;
        boolean mine = false;
        synchronized (this) {
            future = entries.get(key);
            if (future == null) {
                future = new CompletableFuture<>();
                entries.put(key, future);
                mine = true;
                while (entries.size() > capacity) {
                    entries.remove(entries.keySet().iterator().next());
                }
            }
        }
        if (mine) {
            misses.incrementAndGet();
            try {
                future.complete(load(session, g, options, key));
            } catch (RuntimeException | Error e) {
                future.completeExceptionally(e);
                synchronized (this) {
                    entries.remove(key, future);
                }
                throw e;
            }
        } else {
            hits.incrementAndGet();
        }
        try {
            return future.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        }
    }

    private Program load(Session session, Graph g, CompileOptions options, String key) {
        Path file = dir == null ? null : dir.resolve(key + ".rlxc");
        if (file != null) {
            Program p = ProgramFile.read(file, key);
            if (p != null) {
                diskHits.incrementAndGet();
                return p;
            }
        }
        Program p = session.prepare(g, options);
        if (file != null) {
            try {
                ProgramFile.write(file, key, p);
            } catch (IOException | RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "could not write compile cache entry " + file + ": " + e);
            }
        }
        return p;
    }

    /** SHA-256 over everything that decides the compiled program. */
    static String key(Session session, Graph g, CompileOptions options) {
        String text = String.join("\n", Rlx.VERSION, String.valueOf(ProgramFile.FORMAT), session.backendKey(),
                options.programKey(), g.fingerprint());
        return HexFormat.of().formatHex(ProgramFile.sha256(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    /** Compiles served from a cached program (in memory or on disk), including waits on a concurrent compile. */
    public long hits() {
        return hits.get();
    }

    /** Compiles that were not in memory (some of these may have been read from disk). */
    public long misses() {
        return misses.get();
    }

    /** Misses served from the disk layer without running the passes. */
    public long diskHits() {
        return diskHits.get();
    }

    public synchronized int size() {
        return entries.size();
    }

    public synchronized void clear() {
        entries.clear();
    }

    /** The disk directory, or null. */
    public Path directory() {
        return dir;
    }

    @Override
    public String toString() {
        return "CompileCache[size=" + size() + "/" + capacity + ", hits=" + hits + ", misses=" + misses + ", diskHits="
                + diskHits + (dir == null ? "" : ", dir=" + dir) + "]";
    }

}
