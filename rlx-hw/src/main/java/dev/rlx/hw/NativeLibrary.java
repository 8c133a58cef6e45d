package dev.rlx.hw;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A vendor's C library (NVML, ROCm SMI) bound with FFM: loading, looking up functions that may be missing in older
 * releases, and calling them with out-parameters. The library stays loaded for the life of the JVM, as the vendors
 * intend for their management libraries.
 */
final class NativeLibrary {
    private static final Linker LINKER = Linker.nativeLinker();
    /** C's {@code size_t} on this platform. */
    static final ValueLayout SIZE_T = (ValueLayout) LINKER.canonicalLayouts().get("size_t");

    private final SymbolLookup lookup;
    private final String source;

    private NativeLibrary(SymbolLookup lookup, String source) {
        this.lookup = lookup;
        this.source = source;
    }

    /**
     * Loads the first candidate that loads. A candidate containing {@code /} is a file; any other is a name the
     * dynamic linker searches for (e.g. {@code libnvidia-ml.so.1}).
     */
    static Optional<NativeLibrary> load(List<String> candidates) {
        for (String c : candidates) {
            try {
                SymbolLookup l = c.contains("/")
                        ? SymbolLookup.libraryLookup(Path.of(c).toAbsolutePath(), Arena.global())
                        : SymbolLookup.libraryLookup(c, Arena.global());
                return Optional.of(new NativeLibrary(l, c));
            } catch (IllegalArgumentException e) {
                // not there (or not loadable): try the next candidate
            }
        }
        return Optional.empty();
    }

    /** What was loaded: the candidate's path or name. */
    String source() {
        return source;
    }

    /** The function, or null when this release of the library lacks it. */
    MethodHandle find(String name, FunctionDescriptor fd) {
        return lookup.find(name).map(s -> LINKER.downcallHandle(s, fd)).orElse(null);
    }

    /** Calls a function returning a status code. */
    static int call(MethodHandle h, Object... args) {
        try {
            return (int) h.invokeWithArguments(args);
        } catch (Throwable t) {
            // Downcalls do not throw; only a descriptor that does not match the arguments can get here.
            throw new IllegalStateException("native call " + h.type() + " failed", t);
        }
    }

    /**
     * Calls {@code h(args..., out)} with a fresh out-parameter of {@code outLayout}; returns it when the status is 0,
     * and null when the call failed or the function is missing (both mean "no reading").
     */
    static MemorySegment out(Arena arena, MethodHandle h, MemoryLayout outLayout, Object... args) {
        if (h == null) {
            return null;
        }
        MemorySegment out = arena.allocate(outLayout);
        Object[] all = Arrays.copyOf(args, args.length + 1);
        all[args.length] = out;
        return call(h, all) == 0 ? out : null;
    }

    /** An unsigned 32-bit out-parameter, or null. */
    static Long u32(MemorySegment out) {
        return out == null ? null : Integer.toUnsignedLong(out.get(ValueLayout.JAVA_INT, 0));
    }

    /** A 64-bit out-parameter, or null when absent or negative (no sensor reading is negative in these units). */
    static Long nonNegative64(MemorySegment out) {
        if (out == null) {
            return null;
        }
        long v = out.get(ValueLayout.JAVA_LONG, 0);
        return v >= 0 ? v : null;
    }

    /** A value as an {@code Integer}, or null when absent or too large to be a real reading. */
    static Integer asInt(Long v) {
        return v == null || v > Integer.MAX_VALUE ? null : v.intValue();
    }

    /** The text in a fixed-size buffer up to its first NUL; the whole buffer if the library left no NUL. */
    static String string(MemorySegment buffer) {
        byte[] bytes = buffer.toArray(ValueLayout.JAVA_BYTE);
        int n = 0;
        while (n < bytes.length && bytes[n] != 0) {
            n++;
        }
        return new String(bytes, 0, n, StandardCharsets.UTF_8).strip();
    }

    /** A C string a library returned by pointer, read byte by byte up to NUL or {@code max} bytes; null for NULL. */
    static String string(MemorySegment pointer, int max) {
        if (pointer == null || pointer.address() == 0) {
            return null;
        }
        // Reading byte by byte never touches memory past the terminator, however the string sits in its mapping.
        MemorySegment s = pointer.reinterpret(max);
        byte[] bytes = new byte[max];
        int n = 0;
        while (n < max && (bytes[n] = s.get(ValueLayout.JAVA_BYTE, n)) != 0) {
            n++;
        }
        return new String(bytes, 0, n, StandardCharsets.UTF_8);
    }
}
