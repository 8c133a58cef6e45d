package dev.rlx.cuda;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * Compiled kernels on disk, {@code <dir>/<sha-256>.cubin}, keyed by the source text, the compiler options (the
 * architecture among them) and the compiler's version, so each variant compiles once per machine and a new
 * NVRTC or GPU compiles afresh. Writes go through a temporary file and an atomic move; an unreadable or
 * unwritable folder only costs a compilation.
 */
final class CubinCache {
    /** What turns a source into a cubin (NVRTC at run time; tests may use nvcc). */
    interface Compiler {
        byte[] compile(String source, String name, List<String> options);

        /** Part of the cache key: a new compiler version compiles afresh. */
        String version();
    }

    private final Path dir;
    private final Compiler compiler;

    CubinCache(Path dir, Compiler compiler) {
        this.dir = dir;
        this.compiler = compiler;
    }

    /** The key of {@code source} compiled with {@code options}. */
    String key(String source, List<String> options) {
        return sha256(source + "\u0000" + String.join("\u0000", options) + "\u0000" + compiler.version());
    }

    /**
     * The cubin of {@code source} with {@code options}, from the cache or compiled now.
     *
     * @throws CudaException with the compiler's log when it does not compile
     */
    byte[] get(String source, String name, List<String> options) {
        String key = key(source, options);
        Path file = dir.resolve(key + ".cubin");
        try {
            if (Files.isRegularFile(file)) {
                return Files.readAllBytes(file);
            }
        } catch (IOException e) {
            // unreadable entry: compile again
        }
        byte[] cubin = compiler.compile(source, name, options);
        try {
            Files.createDirectories(dir);
            Path tmp = Files.createTempFile(dir, key, ".tmp");
            Files.write(tmp, cubin);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            // the cache is an optimisation: a read-only folder still compiles
        }
        return cubin;
    }

    static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
