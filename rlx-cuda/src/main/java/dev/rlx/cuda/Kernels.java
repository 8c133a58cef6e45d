package dev.rlx.cuda;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rlx.cuda.bindings.Nvrtc;
import dev.rlx.runtime.CompileCache;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The loaded kernels of one context: each {@link KernelSource} variant compiled by NVRTC for the device's
 * architecture (through the {@link CubinCache}), loaded as a module once, its entry point kept for every graph
 * that launches it. Thread-safe.
 */
final class Kernels implements AutoCloseable {
    private final CudaContext ctx;
    private final CubinCache cache;
    private final List<String> options;
    private final Map<String, long[]> loaded = new ConcurrentHashMap<>(); // text -> {module, function}

    Kernels(CudaContext ctx) {
        this.ctx = ctx;
        this.cache = new CubinCache(CompileCache.defaultDirectory().resolve("cuda"), nvrtcCompiler(ctx.nvrtc));
        this.options = options(ctx.info.arch());
    }

    /** NVRTC's options for {@code arch}: IEEE f32 (no contraction, exact division and square root). */
    static List<String> options(String arch) {
        return List.of("--gpu-architecture=" + arch, "--fmad=false", "--prec-div=true", "--prec-sqrt=true",
                "--std=c++17");
    }

    static CubinCache.Compiler nvrtcCompiler(Nvrtc nvrtc) {
        return new CubinCache.Compiler() {
            @Override
            public byte[] compile(String source, String name, List<String> options) {
                return nvrtc.compile(source, name, options);
            }

            @Override
            public String version() {
                return "nvrtc " + nvrtc.version();
            }
        };
    }

    /**
     * The entry point of {@code k}, compiled and loaded on first use; {@code what} names the op for errors.
     *
     * @throws CudaException naming the op and the kernel file, with NVRTC's log, when it does not compile
     */
    long function(KernelSource k, String what) {
        String text = k.text();
        long[] f = loaded.get(text);
        if (f != null) {
            return f[1];
        }
        synchronized (this) {
            f = loaded.get(text);
            if (f == null) {
                f = load(k, text, what);
                loaded.put(text, f);
            }
        }
        return f[1];
    }

    private long[] load(KernelSource k, String text, String what) {
        byte[] cubin;
        try {
            cubin = cache.get(text, k.file() + ".cu", options);
        } catch (CudaException e) {
            throw new CudaException("CUDA: kernel " + k.file() + ".cu for " + what + " does not compile: "
                    + e.getMessage(), e.call(), e.result(), e.resultName(), e);
        }
        ctx.bind();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment image = a.allocate(cubin.length + 1L);
            MemorySegment.copy(cubin, 0, image, JAVA_BYTE, 0, cubin.length);
            MemorySegment module = a.allocate(JAVA_LONG);
            ctx.check(ctx.driver.cuModuleLoadData(module, image), "cuModuleLoadData",
                    "loading kernel " + k.file() + ".cu for " + what);
            long m = module.get(JAVA_LONG, 0);
            MemorySegment fn = a.allocate(JAVA_LONG);
            ctx.check(ctx.driver.cuModuleGetFunction(fn, m, a.allocateFrom(KernelSource.ENTRY)),
                    "cuModuleGetFunction", "loading kernel " + k.file() + ".cu");
            return new long[] {m, fn.get(JAVA_LONG, 0)};
        }
    }

    @Override
    public void close() {
        ctx.bind();
        for (long[] f : loaded.values()) {
            ctx.driver.cuModuleUnload(f[0]);
        }
        loaded.clear();
    }
}
