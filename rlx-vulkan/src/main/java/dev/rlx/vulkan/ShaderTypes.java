package dev.rlx.vulkan;

import dev.rlx.ir.DType;
import java.util.Map;

/**
 * How each dtype is stored and computed in GLSL: the macros {@code <X>_S}, {@code <X>_C}, {@code <X>_LOAD} and
 * {@code <X>_STORE} that common.glsl's conventions expect for an operand named {@code X}.
 */
final class ShaderTypes {
    private ShaderTypes() {}

    /** Storage type, compute type, load and store conversions. */
    record GlslType(String storage, String compute, String load, String store) {}

    static GlslType of(DType t) {
        return switch (t) {
            case F32 -> new GlslType("float", "float", "LOAD_SAME", "LOAD_SAME");
            case F64 -> new GlslType("double", "double", "LOAD_SAME", "LOAD_SAME");
            case F16 -> new GlslType("float16_t", "float", "LOAD_F16", "STORE_F16");
            case BF16 -> new GlslType("uint16_t", "float", "LOAD_BF16", "STORE_BF16");
            case I8 -> new GlslType("int8_t", "int", "LOAD_SMALL_INT", "STORE_I8");
            case I16 -> new GlslType("int16_t", "int", "LOAD_SMALL_INT", "STORE_I16");
            case I32 -> new GlslType("int", "int", "LOAD_SAME", "LOAD_SAME");
            case I64 -> new GlslType("int64_t", "int64_t", "LOAD_SAME", "LOAD_SAME");
            case U8 -> new GlslType("uint8_t", "uint", "LOAD_SMALL_UINT", "STORE_U8");
            case U32 -> new GlslType("uint", "uint", "LOAD_SAME", "LOAD_SAME");
            case BOOL -> new GlslType("uint8_t", "uint", "LOAD_SMALL_UINT", "STORE_BOOL");
            case C64 -> throw new VulkanException("Vulkan: no c64 kernels");
        };
    }

    /** Adds the four macros of operand {@code name} of dtype {@code t} to {@code macros}. */
    static void define(Map<String, String> macros, String name, DType t) {
        GlslType g = of(t);
        macros.put(name + "_S", g.storage());
        macros.put(name + "_C", g.compute());
        macros.put(name + "_LOAD", g.load());
        macros.put(name + "_STORE", g.store());
    }

    /** The storage type of raw copies of {@code bytes}-wide elements. */
    static String rawType(int bytes) {
        return switch (bytes) {
            case 1 -> "uint8_t";
            case 2 -> "uint16_t";
            case 4 -> "uint";
            case 8 -> "uint64_t";
            default -> throw new VulkanException("Vulkan: no " + bytes + "-byte element type");
        };
    }
}
