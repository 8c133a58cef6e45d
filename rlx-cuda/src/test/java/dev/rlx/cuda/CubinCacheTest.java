package dev.rlx.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cubin cache: one compilation per (source, options, compiler version), errors passed on, nothing cached. */
class CubinCacheTest {
    /** Records what it compiles; "bad" sources fail like NVRTC. */
    static final class FakeCompiler implements CubinCache.Compiler {
        final List<String> compiled = new ArrayList<>();
        String version = "1.0";

        @Override
        public byte[] compile(String source, String name, List<String> options) {
            if (source.contains("bad")) {
                throw new CudaException("NVRTC: " + name + " does not compile:\nerror: bad", "nvrtcCompileProgram", 6,
                        "NVRTC_ERROR_COMPILATION", null);
            }
            compiled.add(source + options);
            return (source + options).getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String version() {
            return version;
        }
    }

    @Test
    void compilesOncePerSourceOptionsAndVersion(@TempDir Path dir) throws Exception {
        FakeCompiler c = new FakeCompiler();
        CubinCache cache = new CubinCache(dir, c);
        byte[] first = cache.get("src", "k.cu", Kernels.options("sm_90"));
        assertArrayEquals(first, cache.get("src", "k.cu", Kernels.options("sm_90")));
        assertEquals(1, c.compiled.size(), "the second came from disk");
        assertTrue(Files.isRegularFile(dir.resolve(cache.key("src", Kernels.options("sm_90")) + ".cubin")));
        // a new cache over the same folder (a new process) reads it back
        assertArrayEquals(first, new CubinCache(dir, c).get("src", "k.cu", Kernels.options("sm_90")));
        assertEquals(1, c.compiled.size());

        cache.get("src", "k.cu", Kernels.options("sm_80"));
        assertEquals(2, c.compiled.size(), "another architecture compiles afresh");
        String before = cache.key("src", Kernels.options("sm_80"));
        c.version = "2.0";
        assertNotEquals(before, cache.key("src", Kernels.options("sm_80")), "a new compiler is another key");
    }

    @Test
    void aCompileErrorIsPassedOnAndNothingIsCached(@TempDir Path dir) throws Exception {
        FakeCompiler c = new FakeCompiler();
        CubinCache cache = new CubinCache(dir, c);
        CudaException e = assertThrows(CudaException.class, () -> cache.get("bad", "k.cu", List.of()));
        assertEquals("NVRTC_ERROR_COMPILATION", e.resultName());
        try (var s = Files.list(dir)) {
            assertEquals(0, s.count());
        }
    }

    @Test
    void anUnwritableFolderStillCompiles(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("not-a-folder"), "x");
        FakeCompiler c = new FakeCompiler();
        CubinCache cache = new CubinCache(file.resolve("cuda"), c);
        assertEquals("src[]", new String(cache.get("src", "k.cu", List.of()), StandardCharsets.UTF_8));
        cache.get("src", "k.cu", List.of());
        assertEquals(2, c.compiled.size(), "no cache, so it compiled again");
    }
}
