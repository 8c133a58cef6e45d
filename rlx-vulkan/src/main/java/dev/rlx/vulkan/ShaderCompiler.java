package dev.rlx.vulkan;

import static org.lwjgl.util.shaderc.Shaderc.*;

import dev.rlx.runtime.CompileCache;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * GLSL compute shaders (resources under {@code dev/rlx/vulkan/shaders}, one file per kernel family) compiled to
 * SPIR-V with shaderc, specialised by macro definitions, and cached on disk under the compile cache folder
 * ({@code <cache>/vulkan/<sha-256>.spv}, keyed by the source and the macros), so each variant compiles once.
 */
final class ShaderCompiler {
    private static final String ROOT = "/dev/rlx/vulkan/shaders/";
    private static final Map<String, String> SOURCES = new ConcurrentHashMap<>();

    private final Path dir;

    ShaderCompiler(Path dir) {
        this.dir = dir;
    }

    static ShaderCompiler atDefaultDirectory() {
        return new ShaderCompiler(CompileCache.defaultDirectory().resolve("vulkan"));
    }

    /**
     * SPIR-V of {@code shader} ({@code "elementwise"}) with {@code macros} defined; {@code what} names the op
     * for the error message when it does not compile.
     *
     * @throws VulkanException naming the op and the shader, with shaderc's message, when it does not compile
     */
    byte[] compile(String shader, Map<String, String> macros, String what) {
        Map<String, String> sorted = new TreeMap<>(macros);
        String source = source(shader, sorted);
        String key = hash(source);
        Path file = dir.resolve(key + ".spv");
        try {
            if (Files.isRegularFile(file)) {
                return Files.readAllBytes(file);
            }
        } catch (IOException e) {
            // unreadable cache entry: compile again
        }
        byte[] spv = compileNow(shader, source, sorted, what);
        try {
            Files.createDirectories(dir);
            Path tmp = Files.createTempFile(dir, key, ".tmp");
            Files.write(tmp, spv);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            // the cache is an optimisation: a read-only folder still compiles
        }
        return spv;
    }

    /**
     * The full text compiled for {@code shader}: the version, one {@code #define} per macro (function-like ones
     * too, such as {@code STEP(acc, x)}), the common declarations and helpers, then the kernel.
     */
    static String source(String shader, Map<String, String> macros) {
        StringBuilder sb = new StringBuilder("#version 460\n");
        macros.forEach((k, v) -> sb.append("#define ").append(k).append(' ').append(v).append('\n'));
        return sb.append(SOURCES.computeIfAbsent(shader, s -> resource("common.glsl") + "\n" + resource("math.glsl")
                + "\n#line 1\n" + resource(s + ".comp"))).toString();
    }

    private static byte[] compileNow(String shader, String source, Map<String, String> macros, String what) {
        long compiler = shaderc_compiler_initialize();
        long options = shaderc_compile_options_initialize();
        try {
            shaderc_compile_options_set_target_env(options, shaderc_target_env_vulkan, shaderc_env_version_vulkan_1_2);
            shaderc_compile_options_set_optimization_level(options, shaderc_optimization_level_performance);
            long result = shaderc_compile_into_spv(compiler, source, shaderc_glsl_compute_shader, shader + ".comp",
                    "main", options);
            try {
                if (shaderc_result_get_compilation_status(result) != shaderc_compilation_status_success) {
                    throw new VulkanException("Vulkan: shader " + shader + ".comp for " + what + " does not compile "
                            + macros + ": " + shaderc_result_get_error_message(result));
                }
                ByteBuffer bytes = shaderc_result_get_bytes(result);
                byte[] out = new byte[bytes.remaining()];
                bytes.get(out);
                return out;
            } finally {
                shaderc_result_release(result);
            }
        } finally {
            shaderc_compile_options_release(options);
            shaderc_compiler_release(compiler);
        }
    }

    private static String resource(String name) {
        try (InputStream in = ShaderCompiler.class.getResourceAsStream(ROOT + name)) {
            if (in == null) {
                throw new VulkanException("Vulkan: shader source " + name + " is missing from the rlx-vulkan jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String hash(String source) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            md.update(source.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
