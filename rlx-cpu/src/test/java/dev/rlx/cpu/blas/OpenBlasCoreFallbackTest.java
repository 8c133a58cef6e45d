package dev.rlx.cpu.blas;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.cpu.kernels.VectorMath;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code RLX_CPU_BLAS=openblas} with a library that runs a generic kernel family: RLX's own kernels run instead.
 * The library is a fake (src/test/c/fake_openblas.c) reporting core "Prescott" and writing 42 into every product,
 * so the result shows which side computed it. Runs in a JVM of its own (tag {@code isolated}): OpenBLAS is loaded
 * once per process.
 */
@Tag("isolated")
class OpenBlasCoreFallbackTest {
    private static Path fakeLibrary(String core) throws IOException, InterruptedException {
        Path dir = Files.createDirectories(Path.of("target", "fake-openblas"));
        Path out = dir.resolve("libfakeopenblas-" + core + ".so").toAbsolutePath();
        Path src = Path.of("src", "test", "c", "fake_openblas.c").toAbsolutePath();
        List<String> cmd = List.of("gcc", "-shared", "-fPIC", "-O1", "-Wall", "-Werror", "-DFAKE_CORE=\"" + core + "\"",
                "-o", out.toString(), src.toString());
        Process p;
        try {
            p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        } catch (IOException e) {
            Assumptions.abort("gcc is not installed: the fake OpenBLAS cannot be built");
            throw e;
        }
        String log = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "gcc timed out");
        assertEquals(0, p.exitValue(), "gcc failed: " + log);
        return out;
    }

    @Test
    void genericCore_isNotUsed_andRlxsKernelsComputeTheProduct() throws Exception {
        Assumptions.assumeTrue(VectorMath.F.vectorBitSize() > 128, "this CPU's vectors are no wider than Prescott's");
        Path lib = fakeLibrary("Prescott");
        System.setProperty("RLX_OPENBLAS_LIBRARY", lib.toString());
        System.setProperty("RLX_CPU_BLAS", "openblas");
        try {
            OpenBlas loaded = OpenBlas.load().orElseThrow();
            assertEquals("Prescott", loaded.coreName());
            assertEquals(lib.toString(), loaded.source(), "the library named by RLX_OPENBLAS_LIBRARY is loaded");
            assertTrue(OpenBlas.usable().isEmpty(), "but not used for RLX's matmuls");

            Graph g = new Graph("mm");
            g.setOutputs(g.matmul(g.input("a", Shape.of(DType.F32, 2, 3)), g.param("b", Shape.of(DType.F32, 3, 2))));
            try (Session s = new Session(Device.CPU, CompileOptions.defaults(), null); CompiledGraph c = s.compile(g)) {
                c.setParam("b", new float[] {1, 2, 3, 4, 5, 6});
                float[] y = c.run(Map.of("a", new float[] {1, 0, -1, 2, 1, 0.5f})).get(0);
                assertArrayEquals(new float[] {1 - 5, 2 - 6, 2 + 3 + 2.5f, 4 + 4 + 3}, y, "not the fake's 42s");
            }
        } finally {
            System.clearProperty("RLX_OPENBLAS_LIBRARY");
            System.clearProperty("RLX_CPU_BLAS");
        }
    }
}
