package dev.rlx.llm.gguf;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The key-value metadata of a GGUF file, in file order, with typed getters whose errors name the key and the
 * type found. Integer getters accept any integer type whose value fits.
 */
public final class GgufMetadata {
    private final Map<String, GgufValue> values;

    GgufMetadata(Map<String, GgufValue> values) {
        this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    public Map<String, GgufValue> asMap() {
        return values;
    }

    public Set<String> keys() {
        return values.keySet();
    }

    public boolean has(String key) {
        return values.containsKey(key);
    }

    /** The value of {@code key}, or null. */
    public GgufValue get(String key) {
        return values.get(key);
    }

    private GgufValue require(String key) {
        GgufValue v = values.get(key);
        if (v == null) {
            throw new GgufFormatException("metadata key '" + key + "' is missing", -1);
        }
        return v;
    }

    private static GgufFormatException wrongType(String key, String expected, GgufValue v) {
        return new GgufFormatException("metadata key '" + key + "' should be " + expected + " but is " + v.type(), -1);
    }

    public String getString(String key) {
        GgufValue v = require(key);
        if (v.type() != GgufValueType.STRING) {
            throw wrongType(key, "a STRING", v);
        }
        return (String) v.value();
    }

    public String getString(String key, String fallback) {
        return has(key) ? getString(key) : fallback;
    }

    /** An integer value (UINT64 above Long.MAX_VALUE is an error). */
    public long getLong(String key) {
        GgufValue v = require(key);
        if (!v.type().integer()) {
            throw wrongType(key, "an integer", v);
        }
        long x = (Long) v.value();
        if (v.type() == GgufValueType.UINT64 && x < 0) {
            throw new GgufFormatException("metadata key '" + key + "' = " + Long.toUnsignedString(x)
                    + " does not fit a long", -1);
        }
        return x;
    }

    public long getLong(String key, long fallback) {
        return has(key) ? getLong(key) : fallback;
    }

    /** An integer value in {@code [min, max]}. */
    public int getInt(String key, int min, int max) {
        long v = getLong(key);
        if (v < min || v > max) {
            throw new GgufFormatException("metadata key '" + key + "' = " + v + " is outside [" + min + ", " + max
                    + "]", -1);
        }
        return (int) v;
    }

    public int getInt(String key, int min, int max, int fallback) {
        return has(key) ? getInt(key, min, max) : fallback;
    }

    /** A FLOAT32 or FLOAT64 value (integers are accepted too). */
    public double getDouble(String key) {
        GgufValue v = require(key);
        return switch (v.type()) {
            case FLOAT32 -> (Float) v.value();
            case FLOAT64 -> (Double) v.value();
            default -> {
                if (!v.type().integer()) {
                    throw wrongType(key, "a number", v);
                }
                yield getLong(key);
            }
        };
    }

    public double getDouble(String key, double fallback) {
        return has(key) ? getDouble(key) : fallback;
    }

    public boolean getBool(String key, boolean fallback) {
        if (!has(key)) {
            return fallback;
        }
        GgufValue v = require(key);
        if (v.type() != GgufValueType.BOOL) {
            throw wrongType(key, "a BOOL", v);
        }
        return (Boolean) v.value();
    }

    public GgufArray getArray(String key) {
        GgufValue v = require(key);
        if (v.type() != GgufValueType.ARRAY) {
            throw wrongType(key, "an ARRAY", v);
        }
        return (GgufArray) v.value();
    }

    @Override
    public String toString() {
        return values.toString();
    }
}
