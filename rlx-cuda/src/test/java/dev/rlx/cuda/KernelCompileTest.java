package dev.rlx.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.cuda.bindings.CudaLibrary;
import dev.rlx.cuda.bindings.LibraryLocator;
import dev.rlx.cuda.bindings.Nvrtc;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every kernel variant the backend generates for the testkit's graphs compiles for sm_80 (A100) and sm_90
 * (H100/H200): with NVRTC, exactly as the backend compiles them, where NVRTC is installed; with nvcc (one
 * translation unit per batch of variants, each in its own namespace) where only nvcc is. Skipped, with the
 * reason, where neither is. No GPU needed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KernelCompileTest {
    static final List<String> ARCHS = List.of("sm_80", "sm_90");

    private KernelVariants.Found found;

    @BeforeAll
    void lowerTheTestkit() {
        found = KernelVariants.ofTestkit();
    }

    @Test
    void theTestkitLowersWithoutErrorsAndCoversEveryKernelFile() {
        assertEquals(List.of(), found.failures(), "lowering failures");
        assertTrue(found.cases() > 300, "cases the backend takes: " + found.cases());
        assertTrue(found.gemms() > 0, "float products went to cuBLAS");
        Set<String> files = new HashSet<>();
        for (KernelSource k : found.variants()) {
            files.add(k.file());
        }
        assertEquals(new HashSet<>(KernelSource.FILES), files, "kernel files the testkit reaches");
        System.out.println("CUDA lowering of the testkit: " + found.cases() + " cases the backend takes, "
                + found.variants().size() + " kernel variants, " + found.gemms() + " cuBLAS GEMMs");
    }

    @Test
    void everyVariantCompilesWithNvrtc() {
        LibraryLocator.Located at = LibraryLocator.system().locate(CudaLibrary.NVRTC);
        Nvrtc nvrtc;
        try {
            nvrtc = Nvrtc.load(at);
        } catch (CudaException e) {
            Assumptions.abort("no NVRTC here (" + at.how() + "): " + e.getMessage());
            return;
        }
        for (String arch : ARCHS) {
            for (KernelSource k : found.variants()) {
                byte[] cubin = nvrtc.compile(k.text(), k.file() + ".cu", Kernels.options(arch));
                assertTrue(cubin.length > 4 && cubin[0] == 0x7f && cubin[1] == 'E', "an ELF cubin for " + k.file());
            }
        }
    }

    @Test
    void everyVariantCompilesWithNvcc(@TempDir Path tmp) throws Exception {
        Path nvcc = NvccCompiler.find();
        Assumptions.assumeTrue(nvcc != null, "no nvcc on PATH or in /usr/local/cuda/bin");
        List<KernelSource> all = found.variants();
        int batch = 120;
        List<Future<String>> results = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(4,
                Runtime.getRuntime().availableProcessors())));
        try {
            for (int from = 0; from < all.size(); from += batch) {
                List<KernelSource> part = all.subList(from, Math.min(all.size(), from + batch));
                Path src = tmp.resolve("bundle" + from + ".cu");
                Files.writeString(src, KernelSource.bundle(part));
                results.add(pool.submit(() -> NvccCompiler.compileAll(nvcc, src, ARCHS)));
            }
            List<String> errors = new ArrayList<>();
            for (Future<String> f : results) {
                String e = f.get(10, TimeUnit.MINUTES);
                if (e != null) {
                    errors.add(e);
                }
            }
            assertEquals(List.of(), errors, all.size() + " variants in " + results.size() + " bundles");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aBrokenVariantFailsTheBundleWithTheCompilersMessage(@TempDir Path tmp) throws Exception {
        Path nvcc = NvccCompiler.find();
        Assumptions.assumeTrue(nvcc != null, "no nvcc on PATH or in /usr/local/cuda/bin");
        KernelSource good = found.variants().get(0);
        java.util.Map<String, String> m = new java.util.TreeMap<>(good.macros());
        m.put("EXPR", "(a +* b)");
        KernelSource bad = new KernelSource("elementwise", new java.util.TreeMap<>(m));
        Path src = tmp.resolve("bad.cu");
        Files.writeString(src, KernelSource.bundle(List.of(good, bad)));
        String error = NvccCompiler.compileAll(nvcc, src, List.of("sm_90"));
        assertTrue(error != null && error.contains("error"), String.valueOf(error));
    }
}
