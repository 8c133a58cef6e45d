package dev.rlx.llm.gguf;

import java.util.Objects;

/**
 * One metadata value with its GGUF type. {@code value} is a {@link Long} for every integer type (unsigned ones
 * in their bits, so UINT64 above {@code Long.MAX_VALUE} is negative), a {@link Float} for FLOAT32, a
 * {@link Double} for FLOAT64, a {@link Boolean}, a {@link String} or a {@link GgufArray}.
 */
public record GgufValue(GgufValueType type, Object value) {
    public GgufValue {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(value, "value");
        Class<?> want = switch (type) {
            case UINT8, INT8, UINT16, INT16, UINT32, INT32, UINT64, INT64 -> Long.class;
            case FLOAT32 -> Float.class;
            case FLOAT64 -> Double.class;
            case BOOL -> Boolean.class;
            case STRING -> String.class;
            case ARRAY -> GgufArray.class;
        };
        if (value.getClass() != want) {
            throw new IllegalArgumentException(type + " values are " + want.getSimpleName() + ", not "
                    + value.getClass().getSimpleName());
        }
    }

    public static GgufValue ofString(String s) {
        return new GgufValue(GgufValueType.STRING, s);
    }

    public static GgufValue ofU32(long v) {
        if (v < 0 || v > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException(v + " is not a UINT32");
        }
        return new GgufValue(GgufValueType.UINT32, v);
    }

    public static GgufValue ofI32(int v) {
        return new GgufValue(GgufValueType.INT32, (long) v);
    }

    public static GgufValue ofU64(long v) {
        return new GgufValue(GgufValueType.UINT64, v);
    }

    public static GgufValue ofF32(float v) {
        return new GgufValue(GgufValueType.FLOAT32, v);
    }

    public static GgufValue ofBool(boolean v) {
        return new GgufValue(GgufValueType.BOOL, v);
    }

    public static GgufValue ofArray(GgufArray a) {
        return new GgufValue(GgufValueType.ARRAY, a);
    }
}
