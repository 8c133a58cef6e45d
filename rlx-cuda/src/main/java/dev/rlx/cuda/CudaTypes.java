package dev.rlx.cuda;

import dev.rlx.ir.DType;
import java.util.Map;

/**
 * How each dtype is stored and computed in the CUDA kernels: the macros {@code <X>_S}, {@code <X>_C},
 * {@code <X>_LOAD} and {@code <X>_STORE} that common.cuh's conventions expect for an operand named {@code X}.
 * F16 and BF16 are stored as their 16-bit patterns and computed in f32.
 */
final class CudaTypes {
    private CudaTypes() {}

    /** Storage type, compute type, load and store conversions. */
    record CType(String storage, String compute, String load, String store) {}

    static CType of(DType t) {
        return switch (t) {
            case F32 -> new CType("float", "float", "LOAD_SAME", "LOAD_SAME");
            case F64 -> new CType("double", "double", "LOAD_SAME", "LOAD_SAME");
            case F16 -> new CType("u16", "float", "LOAD_F16", "STORE_F16");
            case BF16 -> new CType("u16", "float", "LOAD_BF16", "STORE_BF16");
            case I8 -> new CType("i8", "int", "LOAD_SMALL_INT", "STORE_I8");
            case I16 -> new CType("i16", "int", "LOAD_SMALL_INT", "STORE_I16");
            case I32 -> new CType("int", "int", "LOAD_SAME", "LOAD_SAME");
            case I64 -> new CType("i64", "i64", "LOAD_SAME", "LOAD_SAME");
            case U8 -> new CType("u8", "uint", "LOAD_SMALL_UINT", "STORE_U8");
            case U32 -> new CType("uint", "uint", "LOAD_SAME", "LOAD_SAME");
            case BOOL -> new CType("u8", "uint", "LOAD_SMALL_UINT", "STORE_BOOL");
            case C64 -> throw new CudaException("CUDA: no c64 kernels");
        };
    }

    /** Adds the four macros of operand {@code name} of dtype {@code t} to {@code macros}. */
    static void define(Map<String, String> macros, String name, DType t) {
        CType c = of(t);
        macros.put(name + "_S", c.storage());
        macros.put(name + "_C", c.compute());
        macros.put(name + "_LOAD", c.load());
        macros.put(name + "_STORE", c.store());
    }

    /** The type values of {@code t} accumulate in: f32 for the 16-bit floats. */
    static String accumulator(DType t) {
        return of(t).compute();
    }

    /** The storage type of raw copies of {@code bytes}-wide elements. */
    static String rawType(int bytes) {
        return switch (bytes) {
            case 1 -> "u8";
            case 2 -> "u16";
            case 4 -> "uint";
            case 8 -> "u64";
            default -> throw new CudaException("CUDA: no " + bytes + "-byte element type");
        };
    }
}
