package dev.rlx.cuda;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** nvcc as a compile check of kernel sources where NVRTC is missing (tests only: the backend uses NVRTC). */
final class NvccCompiler {
    private NvccCompiler() {}

    /** nvcc on PATH or in /usr/local/cuda/bin, or null. */
    static Path find() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isBlank() && Files.isExecutable(Path.of(dir, "nvcc"))) {
                return Path.of(dir, "nvcc");
            }
        }
        Path p = Path.of("/usr/local/cuda/bin/nvcc");
        return Files.isExecutable(p) ? p : null;
    }

    /**
     * Compiles {@code src} to a cubin for each of {@code archs} with the backend's IEEE options; null on success,
     * else the compiler's output.
     */
    static String compileAll(Path nvcc, Path src, List<String> archs) throws IOException, InterruptedException {
        for (String arch : archs) {
            Path out = src.resolveSibling(src.getFileName() + "." + arch + ".cubin");
            List<String> cmd = new ArrayList<>(List.of(nvcc.toString(), "-cubin", "-arch=" + arch, "-fmad=false",
                    "-prec-div=true", "-prec-sqrt=true", "-std=c++17", "-o", out.toString(), src.toString()));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                return arch + ": nvcc timed out on " + src;
            }
            if (p.exitValue() != 0 || !Files.isRegularFile(out) || Files.size(out) == 0) {
                return arch + ": " + src.getFileName() + ": " + log;
            }
        }
        return null;
    }
}
