package dev.rlx.cuda.bindings;

import dev.rlx.cuda.CudaException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Optional;

/**
 * One shared library opened with {@code dlopen} (it stays loaded for the life of the process) and the downcall
 * handles of its functions. Opening it and finding a symbol throw {@link CudaException} naming the file and the
 * symbol, never a {@code java.lang} exception.
 */
public final class NativeLibrary {
    private static final Linker LINKER = Linker.nativeLinker();

    private final Path path;
    private final SymbolLookup lookup;

    private NativeLibrary(Path path, SymbolLookup lookup) {
        this.path = path;
        this.lookup = lookup;
    }

    /**
     * Opens {@code path}: a file, or a bare name ({@code libcuda.so.1}) for the dynamic loader's search.
     *
     * @throws CudaException naming the file and the loader's reason when it does not open
     */
    public static NativeLibrary open(Path path) {
        try {
            SymbolLookup l = path.getNameCount() == 1 && !path.isAbsolute()
                    ? SymbolLookup.libraryLookup(path.toString(), Arena.global())
                    : SymbolLookup.libraryLookup(path, Arena.global());
            return new NativeLibrary(path, l);
        } catch (IllegalArgumentException | IllegalCallerException e) {
            throw new CudaException("CUDA: cannot load " + path + ": " + e.getMessage(), e);
        }
    }

    public Path path() {
        return path;
    }

    /** Whether the library exports {@code name}. */
    public boolean has(String name) {
        return lookup.find(name).isPresent();
    }

    /**
     * The downcall handle of {@code name} with the C signature {@code fd}.
     *
     * @throws CudaException naming the symbol and the library when it is not exported (an older library)
     */
    public MethodHandle function(String name, FunctionDescriptor fd) {
        Optional<MemorySegment> s = lookup.find(name);
        if (s.isEmpty()) {
            throw new CudaException("CUDA: " + path + " has no function " + name + " (the library is older than RLX"
                    + " needs)", name, 0, null, null);
        }
        return LINKER.downcallHandle(s.get(), fd);
    }

    /** The handle of {@code name}, or null when the library does not export it (an optional, newer function). */
    public MethodHandle optionalFunction(String name, FunctionDescriptor fd) {
        return lookup.find(name).map(s -> LINKER.downcallHandle(s, fd)).orElse(null);
    }
}
