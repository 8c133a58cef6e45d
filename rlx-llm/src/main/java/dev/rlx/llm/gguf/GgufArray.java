package dev.rlx.llm.gguf;

import java.util.Arrays;
import java.util.Objects;

/**
 * A GGUF metadata array: its element type and the elements in the narrowest Java array that holds them
 * ({@code byte[]} for UINT8/INT8, {@code short[]}, {@code int[]}, {@code long[]} for the wider integers,
 * {@code float[]}, {@code double[]}, {@code boolean[]}, {@code String[]}, {@code GgufArray[]} for nested arrays).
 * Unsigned values are kept in their bits; {@link #getLong} widens them without sign. Immutable by convention:
 * the arrays are not copied, so callers must not change them.
 */
public final class GgufArray {
    private final GgufValueType elementType;
    private final Object values;
    private final int size;

    private GgufArray(GgufValueType elementType, Object values, int size) {
        this.elementType = elementType;
        this.values = values;
        this.size = size;
    }

    /** Wraps {@code values}, which must be the Java array type the element type is kept in. */
    public static GgufArray of(GgufValueType elementType, Object values) {
        Objects.requireNonNull(elementType, "elementType");
        Objects.requireNonNull(values, "values");
        Class<?> want = switch (elementType) {
            case UINT8, INT8 -> byte[].class;
            case UINT16, INT16 -> short[].class;
            case UINT32, INT32 -> int[].class;
            case UINT64, INT64 -> long[].class;
            case FLOAT32 -> float[].class;
            case FLOAT64 -> double[].class;
            case BOOL -> boolean[].class;
            case STRING -> String[].class;
            case ARRAY -> GgufArray[].class;
        };
        if (values.getClass() != want) {
            throw new IllegalArgumentException(elementType + " elements are kept in " + want.getSimpleName()
                    + ", not " + values.getClass().getSimpleName());
        }
        return new GgufArray(elementType, values, java.lang.reflect.Array.getLength(values));
    }

    public static GgufArray ofStrings(String... s) {
        return of(GgufValueType.STRING, s);
    }

    public static GgufArray ofFloats(float... f) {
        return of(GgufValueType.FLOAT32, f);
    }

    public static GgufArray ofInts(int... i) {
        return of(GgufValueType.INT32, i);
    }

    public GgufValueType elementType() {
        return elementType;
    }

    public int size() {
        return size;
    }

    /** The backing Java array (see the class comment for its type). */
    public Object values() {
        return values;
    }

    /** Element {@code i} of an integer or bool array as a long (unsigned types widened without sign). */
    public long getLong(int i) {
        return switch (elementType) {
            case UINT8 -> ((byte[]) values)[i] & 0xFFL;
            case INT8 -> ((byte[]) values)[i];
            case UINT16 -> ((short[]) values)[i] & 0xFFFFL;
            case INT16 -> ((short[]) values)[i];
            case UINT32 -> ((int[]) values)[i] & 0xFFFF_FFFFL;
            case INT32 -> ((int[]) values)[i];
            case UINT64, INT64 -> ((long[]) values)[i];
            case BOOL -> ((boolean[]) values)[i] ? 1 : 0;
            default -> throw new GgufFormatException("a " + elementType + " array has no integer elements", -1);
        };
    }

    /** Element {@code i} of a numeric array as a double. */
    public double getDouble(int i) {
        return switch (elementType) {
            case FLOAT32 -> ((float[]) values)[i];
            case FLOAT64 -> ((double[]) values)[i];
            case UINT64 -> unsignedToDouble(((long[]) values)[i]);
            default -> getLong(i);
        };
    }

    private static double unsignedToDouble(long v) {
        return v >= 0 ? v : (double) (v >>> 1) * 2.0 + (v & 1);
    }

    /** The elements of a STRING array. */
    public String[] asStrings() {
        if (elementType != GgufValueType.STRING) {
            throw new GgufFormatException("expected a STRING array, found a " + elementType + " array", -1);
        }
        return (String[]) values;
    }

    /** The elements of a numeric array, as floats. */
    public float[] asFloats() {
        if (elementType == GgufValueType.FLOAT32) {
            return (float[]) values;
        }
        float[] f = new float[size];
        for (int i = 0; i < size; i++) {
            f[i] = (float) getDouble(i);
        }
        return f;
    }

    /** The elements of an integer array, as ints; throws when one does not fit. */
    public int[] asInts() {
        if (elementType == GgufValueType.INT32) {
            return (int[]) values;
        }
        int[] r = new int[size];
        for (int i = 0; i < size; i++) {
            long v = getLong(i);
            if (v != (int) v || (elementType == GgufValueType.UINT64 && v < 0)) {
                throw new GgufFormatException("element " + i + " of a " + elementType + " array, " + v
                        + ", does not fit an int", -1);
            }
            r[i] = (int) v;
        }
        return r;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof GgufArray a && a.elementType == elementType
                && Arrays.deepEquals(new Object[] {values}, new Object[] {a.values});
    }

    @Override
    public int hashCode() {
        return 31 * elementType.hashCode() + Arrays.deepHashCode(new Object[] {values});
    }

    @Override
    public String toString() {
        return elementType + "[" + size + "]";
    }
}
