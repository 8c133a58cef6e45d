package dev.rlx.cpu.blas;

import dev.rlx.runtime.Rlx;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * OpenBLAS called through FFM: single-precision GEMM and GEMV on native memory, no copies. Loaded on first
 * use from, in order: {@code RLX_OPENBLAS_LIBRARY} (a path), the system ({@code libopenblas.so.0},
 * {@code libopenblas.so}), or the shared library the {@code org.bytedeco:openblas} jar ships (extracted to
 * a temporary folder). Absent everywhere means {@link #load()} is empty, never an exception.
 */
public final class OpenBlas {
    private static final int ROW_MAJOR = 101;
    private static final int NO_TRANS = 111;
    private static final int TRANS = 112;
    private static final String JAR_DIR = "org/bytedeco/openblas/linux-x86_64/";
    /** Libraries the bytedeco build links against, loaded first so the linker finds them by soname. */
    private static final List<String> JAR_DEPENDENCIES = List.of("libgcc_s.so.1", "libquadmath.so.0", "libgfortran.so.5");

    private static volatile Optional<OpenBlas> instance;

    private final String source;
    private final MethodHandle sgemm;
    private final MethodHandle sgemv;
    private final MethodHandle setThreads;
    private final MethodHandle corename;

    private OpenBlas(SymbolLookup lib, String source) {
        Linker linker = Linker.nativeLinker();
        ValueLayout i = ValueLayout.JAVA_INT;
        ValueLayout f = ValueLayout.JAVA_FLOAT;
        ValueLayout p = ValueLayout.ADDRESS;
        this.source = source;
        this.sgemm = linker.downcallHandle(lib.find("cblas_sgemm").orElseThrow(),
                FunctionDescriptor.ofVoid(i, i, i, i, i, i, f, p, i, p, i, f, p, i));
        this.sgemv = linker.downcallHandle(lib.find("cblas_sgemv").orElseThrow(),
                FunctionDescriptor.ofVoid(i, i, i, i, f, p, i, p, i, f, p, i));
        this.setThreads = linker.downcallHandle(lib.find("openblas_set_num_threads").orElseThrow(),
                FunctionDescriptor.ofVoid(i));
        this.corename = linker.downcallHandle(lib.find("openblas_get_corename").orElseThrow(), FunctionDescriptor.of(p));
    }

    /** The library, loaded once; empty when none can be found or loaded. */
    public static Optional<OpenBlas> load() {
        Optional<OpenBlas> o = instance;
        if (o == null) {
            synchronized (OpenBlas.class) {
                if (instance == null) {
                    instance = Optional.ofNullable(tryLoad());
                }
                o = instance;
            }
        }
        return o;
    }

    private static volatile Optional<OpenBlas> usable;

    /**
     * The library when it is fit to run RLX's matmuls ({@code RLX_CPU_BLAS=openblas}): loaded, and running a kernel
     * family at least as wide as RLX's own vectors ({@link BlasCore#unfit}). Otherwise empty, with one warning naming
     * the library and its core, and RLX's kernels run instead.
     */
    public static Optional<OpenBlas> usable() {
        Optional<OpenBlas> u = usable;
        if (u == null) {
            synchronized (OpenBlas.class) {
                if (usable == null) {
                    usable = load().filter(b -> {
                        String why = BlasCore.unfit(b.coreName(), dev.rlx.cpu.kernels.VectorMath.F.vectorBitSize());
                        if (why != null) {
                            System.getLogger(OpenBlas.class.getName()).log(System.Logger.Level.WARNING,
                                    "RLX_CPU_BLAS=openblas ignored: " + why + " (" + b.source()
                                            + "); RLX's own kernels run instead. Point RLX_OPENBLAS_LIBRARY at a newer"
                                            + " OpenBLAS to use it.");
                        }
                        return why == null;
                    });
                }
                u = usable;
            }
        }
        return u;
    }

    /** Whether {@code RLX_CPU_BLAS=openblas} asks matmuls to run on OpenBLAS. */
    public static boolean requested() {
        String v = Rlx.setting("RLX_CPU_BLAS");
        return v != null && v.trim().equalsIgnoreCase("openblas");
    }

    private static OpenBlas tryLoad() {
        Arena global = Arena.global();
        List<String> tried = new ArrayList<>();
        String explicit = Rlx.setting("RLX_OPENBLAS_LIBRARY");
        if (explicit != null && !explicit.isBlank()) {
            try {
                return new OpenBlas(SymbolLookup.libraryLookup(Path.of(explicit), global), explicit);
            } catch (RuntimeException e) {
                tried.add(explicit + ": " + e.getMessage());
            }
        }
        for (String name : List.of("libopenblas.so.0", "libopenblas.so")) {
            try {
                return new OpenBlas(SymbolLookup.libraryLookup(name, global), name);
            } catch (RuntimeException e) {
                tried.add(name);
            }
        }
        Path dir = extractFromJar();
        if (dir != null) {
            try {
                for (String dep : JAR_DEPENDENCIES) {
                    SymbolLookup.libraryLookup(dir.resolve(dep), global);
                }
                Path lib = dir.resolve("libopenblas.so.0");
                return new OpenBlas(SymbolLookup.libraryLookup(lib, global), "org.bytedeco:openblas (" + lib + ")");
            } catch (RuntimeException e) {
                tried.add(dir + ": " + e.getMessage());
            }
        }
        System.getLogger(OpenBlas.class.getName()).log(System.Logger.Level.DEBUG, "OpenBLAS not found; tried " + tried);
        return null;
    }

    /** Copies the bytedeco jar's libraries to a temporary folder, or returns null if the jar is absent. */
    private static Path extractFromJar() {
        ClassLoader cl = OpenBlas.class.getClassLoader();
        if (cl.getResource(JAR_DIR + "libopenblas.so.0") == null) {
            return null;
        }
        try {
            Path dir = Files.createTempDirectory("rlx-openblas");
            dir.toFile().deleteOnExit();
            List<String> files = new ArrayList<>(JAR_DEPENDENCIES);
            files.add("libopenblas.so.0");
            for (String f : files) {
                try (InputStream in = cl.getResourceAsStream(JAR_DIR + f)) {
                    if (in == null) {
                        return null;
                    }
                    Path target = dir.resolve(f);
                    Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
                    target.toFile().deleteOnExit();
                }
            }
            return dir;
        } catch (IOException e) {
            return null;
        }
    }

    /** Where the library came from. */
    public String source() {
        return source;
    }

    /** The kernel family OpenBLAS chose for this CPU, e.g. {@code "SkylakeX"} or {@code "Haswell"}. */
    public String coreName() {
        try {
            MemorySegment s = (MemorySegment) corename.invokeExact();
            return s.reinterpret(256).getString(0);
        } catch (Throwable t) {
            throw new IllegalStateException("openblas_get_corename failed", t);
        }
    }

    public void setThreads(int threads) {
        try {
            setThreads.invokeExact(threads);
        } catch (Throwable t) {
            throw new IllegalStateException("openblas_set_num_threads failed", t);
        }
    }

    /**
     * Row-major {@code C[m,n] = A[m,k] B[k,n]} (each possibly transposed in memory; {@code lda}, {@code ldb}
     * are the stored row lengths). The segments must be native and start at the first element.
     */
    public void sgemm(boolean transA, boolean transB, int m, int n, int k, MemorySegment a, int lda, MemorySegment b,
                      int ldb, MemorySegment c, int ldc) {
        try {
            sgemm.invokeExact(ROW_MAJOR, transA ? TRANS : NO_TRANS, transB ? TRANS : NO_TRANS, m, n, k, 1f, a, lda, b, ldb,
                    0f, c, ldc);
        } catch (Throwable t) {
            throw new IllegalStateException("cblas_sgemm failed", t);
        }
    }

    /** Row-major {@code y = op(A) x} with A stored {@code [rows, cols]}; {@code trans} uses A's transpose. */
    public void sgemv(boolean trans, int rows, int cols, MemorySegment a, int lda, MemorySegment x, MemorySegment y) {
        try {
            sgemv.invokeExact(ROW_MAJOR, trans ? TRANS : NO_TRANS, rows, cols, 1f, a, lda, x, 1, 0f, y, 1);
        } catch (Throwable t) {
            throw new IllegalStateException("cblas_sgemv failed", t);
        }
    }
}
