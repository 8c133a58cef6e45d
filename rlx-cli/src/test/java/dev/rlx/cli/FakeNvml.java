package dev.rlx.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * rlx-hw's fake NVML ({@code rlx-hw/src/test/c/fake_nvml.c}, two canned GPUs) compiled for this module's
 * tests; the CLI only reads it, so none of rlx-hw's test controls are needed here.
 */
final class FakeNvml {
    private static Path path;

    private FakeNvml() {}

    /** The library's path; compiled on first use, the test skipped when there is no gcc. */
    static synchronized Path path() {
        if (path == null) {
            Path out = Path.of("target", "fake-gpu", "libnvidia-ml.so").toAbsolutePath();
            Path src = Path.of("..", "rlx-hw", "src", "test", "c", "fake_nvml.c").toAbsolutePath().normalize();
            List<String> cmd = List.of("gcc", "-shared", "-fPIC", "-O1", "-o", out.toString(), src.toString());
            try {
                Files.createDirectories(out.getParent());
                Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
                String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                Assertions.assertTrue(p.waitFor(60, TimeUnit.SECONDS), "gcc timed out");
                Assertions.assertEquals(0, p.exitValue(), String.join(" ", cmd) + " failed:\n" + log);
            } catch (IOException e) {
                Assumptions.abort("gcc is not available (" + e.getMessage() + "); the fake NVML tests need a C compiler");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
            path = out;
        }
        return path;
    }
}
