package dev.rlx.vulkan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GLSL to SPIR-V with shaderc (no Vulkan device needed): the disk cache, and the error for a shader that fails. */
class ShaderCompilerTest {
    private static Map<String, String> addF32(String expr) {
        Map<String, String> m = new HashMap<>();
        m.put("ARITY", "2");
        m.put("EXPR", expr);
        for (String x : new String[] {"OUT", "A", "B", "C"}) {
            ShaderTypes.define(m, x, DType.F32);
        }
        return m;
    }

    @Test
    void aVariant_compilesOnce_andIsReadBackFromTheCache(@TempDir Path dir) throws IOException {
        ShaderCompiler c = new ShaderCompiler(dir);
        byte[] first = c.compile("elementwise", addF32("(a + b)"), "node %3 add");
        assertEquals(0x07230203, (first[0] & 0xff) | (first[1] & 0xff) << 8 | (first[2] & 0xff) << 16
                | (first[3] & 0xff) << 24, "SPIR-V magic number");
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(1, files.filter(p -> p.toString().endsWith(".spv")).count());
        }
        assertArrayEquals(first, new ShaderCompiler(dir).compile("elementwise", addF32("(a + b)"), "node %3 add"));
        byte[] other = c.compile("elementwise", addF32("(a * b)"), "node %4 mul");
        assertTrue(!java.util.Arrays.equals(first, other), "another expression is another variant");
    }

    @Test
    void aShaderThatDoesNotCompile_isATypedErrorNamingTheOpAndTheShader(@TempDir Path dir) {
        VulkanException e = assertThrows(VulkanException.class,
                () -> new ShaderCompiler(dir).compile("elementwise", addF32("(a +"), "node %3 add"));
        assertTrue(e.getMessage().contains("elementwise.comp") && e.getMessage().contains("node %3 add"),
                e.getMessage());
    }

    @Test
    void aMissingShaderSource_isATypedError(@TempDir Path dir) {
        VulkanException e = assertThrows(VulkanException.class,
                () -> new ShaderCompiler(dir).compile("nonexistent", Map.of(), "node %1 x"));
        assertTrue(e.getMessage().contains("nonexistent.comp"), e.getMessage());
    }
}
