package dev.rlx.cuda.bindings;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rlx.cuda.CudaException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.List;

/**
 * NVRTC ({@code libnvrtc.so}), the run-time CUDA C++ compiler, bound with FFM: {@link #compile} turns one source
 * into a cubin for one architecture. Thread-safe (NVRTC programs are independent).
 */
public final class Nvrtc {
    /** {@code NVRTC_ERROR_COMPILATION}: the source has errors; the program log says which. */
    public static final int NVRTC_ERROR_COMPILATION = 6;

    private final NativeLibrary lib;
    private final MethodHandle version;
    private final MethodHandle createProgram;
    private final MethodHandle compileProgram;
    private final MethodHandle logSize;
    private final MethodHandle log;
    private final MethodHandle cubinSize;
    private final MethodHandle cubin;
    private final MethodHandle destroyProgram;
    private final MethodHandle errorString;

    private Nvrtc(NativeLibrary lib) {
        this.lib = lib;
        version = lib.function("nvrtcVersion", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        createProgram = lib.function("nvrtcCreateProgram",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS));
        compileProgram = lib.function("nvrtcCompileProgram", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT,
                ADDRESS));
        logSize = lib.function("nvrtcGetProgramLogSize", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
        log = lib.function("nvrtcGetProgramLog", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
        cubinSize = lib.function("nvrtcGetCUBINSize", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
        cubin = lib.function("nvrtcGetCUBIN", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
        destroyProgram = lib.function("nvrtcDestroyProgram", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        errorString = lib.function("nvrtcGetErrorString", FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }

    /**
     * Binds NVRTC at {@code located}.
     *
     * @throws CudaException naming the file when it does not load or lacks a function RLX needs
     */
    public static Nvrtc load(LibraryLocator.Located located) {
        return new Nvrtc(NativeLibrary.open(located.target()));
    }

    public NativeLibrary library() {
        return lib;
    }

    /** {@code "13.0"}: NVRTC's version (part of the cubin cache key). */
    public String version() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment major = a.allocate(JAVA_INT);
            MemorySegment minor = a.allocate(JAVA_INT);
            check((int) version.invokeExact(major, minor), "nvrtcVersion", "asking NVRTC's version");
            return major.get(JAVA_INT, 0) + "." + minor.get(JAVA_INT, 0);
        } catch (CudaException e) {
            throw e;
        } catch (Throwable e) {
            throw new CudaException("NVRTC: nvrtcVersion failed: " + e, e);
        }
    }

    /** NVRTC's name of {@code result} ({@code "NVRTC_ERROR_COMPILATION"}). */
    public String errorName(int result) {
        try {
            MemorySegment s = (MemorySegment) errorString.invokeExact(result);
            return s.equals(MemorySegment.NULL) ? "nvrtcResult " + result : s.reinterpret(256).getString(0);
        } catch (Throwable e) {
            return "nvrtcResult " + result;
        }
    }

    private void check(int result, String call, String what) {
        if (result != 0) {
            String name = errorName(result);
            throw new CudaException("NVRTC: " + call + " failed with " + name + " while " + what, call, result, name,
                    null);
        }
    }

    /**
     * The cubin of {@code source} compiled with {@code options} (one of them {@code --gpu-architecture=sm_XX}).
     *
     * @throws CudaException with the call, the result name and NVRTC's program log when it does not compile
     */
    public byte[] compile(String source, String name, List<String> options) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment prog = a.allocate(ADDRESS);
            check((int) createProgram.invokeExact(prog, a.allocateFrom(source), a.allocateFrom(name), 0,
                    MemorySegment.NULL, MemorySegment.NULL), "nvrtcCreateProgram", "compiling " + name);
            long p = prog.get(JAVA_LONG, 0);
            try {
                MemorySegment opts = a.allocate(ADDRESS, Math.max(1, options.size()));
                for (int i = 0; i < options.size(); i++) {
                    opts.setAtIndex(ADDRESS, i, a.allocateFrom(options.get(i)));
                }
                int r = (int) compileProgram.invokeExact(p, options.size(), opts);
                if (r != 0) {
                    String n = errorName(r);
                    throw new CudaException("NVRTC: " + name + " does not compile (" + n + ", options " + options
                            + "):\n" + programLog(a, p), "nvrtcCompileProgram", r, n, null);
                }
                MemorySegment size = a.allocate(JAVA_LONG);
                check((int) cubinSize.invokeExact(p, size), "nvrtcGetCUBINSize", "compiling " + name);
                MemorySegment out = a.allocate(size.get(JAVA_LONG, 0));
                check((int) cubin.invokeExact(p, out), "nvrtcGetCUBIN", "compiling " + name);
                return out.toArray(JAVA_BYTE);
            } finally {
                MemorySegment pp = a.allocate(JAVA_LONG);
                pp.set(JAVA_LONG, 0, p);
                int ignored = (int) destroyProgram.invokeExact(pp);
            }
        } catch (CudaException e) {
            throw e;
        } catch (Throwable e) {
            throw new CudaException("NVRTC: compiling " + name + " failed: " + e, e);
        }
    }

    private String programLog(Arena a, long p) throws Throwable {
        MemorySegment size = a.allocate(JAVA_LONG);
        if ((int) logSize.invokeExact(p, size) != 0) {
            return "(no log)";
        }
        MemorySegment text = a.allocate(Math.max(1, size.get(JAVA_LONG, 0)));
        if ((int) log.invokeExact(p, text) != 0) {
            return "(no log)";
        }
        return text.getString(0);
    }
}
