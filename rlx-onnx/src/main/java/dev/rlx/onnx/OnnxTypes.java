package dev.rlx.onnx;

import dev.rlx.ir.DType;

/** ONNX element type codes ({@code TensorProto.DataType}) and the RLX dtypes they map to. */
final class OnnxTypes {
    private OnnxTypes() {}

    private static final String[] NAMES = {"UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64",
        "STRING", "BOOL", "FLOAT16", "DOUBLE", "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16"};

    static final int FLOAT = 1;
    static final int STRING = 8;

    /** The ONNX name of {@code code}, e.g. {@code FLOAT16}. */
    static String name(int code) {
        return code >= 0 && code < NAMES.length ? NAMES[code] : "type " + code;
    }

    /**
     * The RLX dtype for {@code code}.
     *
     * @throws OnnxUnsupportedException for STRING, UINT16, UINT64, COMPLEX128, float8 and unknown codes
     */
    static DType dtype(int code, String what) {
        DType t = switch (code) {
            case 1 -> DType.F32;
            case 2 -> DType.U8;
            case 3 -> DType.I8;
            case 5 -> DType.I16;
            case 6 -> DType.I32;
            case 7 -> DType.I64;
            case 9 -> DType.BOOL;
            case 10 -> DType.F16;
            case 11 -> DType.F64;
            case 12 -> DType.U32;
            case 14 -> DType.C64;
            case 16 -> DType.BF16;
            default -> null;
        };
        if (t == null) {
            throw new OnnxUnsupportedException("dtype " + name(code), what + " has element type " + name(code)
                    + ", which RLX does not support");
        }
        return t;
    }

    /** The ONNX code of {@code t}. */
    static int code(DType t) {
        return switch (t) {
            case F32 -> 1;
            case U8 -> 2;
            case I8 -> 3;
            case I16 -> 5;
            case I32 -> 6;
            case I64 -> 7;
            case BOOL -> 9;
            case F16 -> 10;
            case F64 -> 11;
            case U32 -> 12;
            case C64 -> 14;
            case BF16 -> 16;
        };
    }
}
