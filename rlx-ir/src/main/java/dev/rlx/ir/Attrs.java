package dev.rlx.ir;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Immutable, sorted attributes of a {@link Op.Custom custom op}. Values are {@code Long}, {@code Double},
 * {@code Boolean}, {@code String}, {@code List<Long>} or {@code List<Double>}; anything else is rejected so
 * that attributes print, serialize and fingerprint the same way everywhere.
 */
public final class Attrs {
    public static final Attrs EMPTY = new Attrs(new TreeMap<>());

    private final TreeMap<String, Object> values;

    private Attrs(TreeMap<String, Object> values) {
        this.values = values;
    }

    /** {@code Attrs.of("k", 3L, "alpha", 0.5)}: alternating names and values. Ints widen to Long, floats to Double. */
    public static Attrs of(Object... nameValuePairs) {
        if (nameValuePairs.length % 2 != 0) {
            throw new IllegalArgumentException("attrs: expected name/value pairs, got " + nameValuePairs.length + " items");
        }
        TreeMap<String, Object> m = new TreeMap<>();
        for (int i = 0; i < nameValuePairs.length; i += 2) {
            if (!(nameValuePairs[i] instanceof String name)) {
                throw new IllegalArgumentException("attrs: name at position " + i + " is not a String");
            }
            if (m.put(name, normalize(name, nameValuePairs[i + 1])) != null) {
                throw new IllegalArgumentException("attrs: duplicate name '" + name + "'");
            }
        }
        return new Attrs(m);
    }

    /** Attributes from a map; values as in {@link #of}. */
    public static Attrs of(Map<String, ?> map) {
        TreeMap<String, Object> m = new TreeMap<>();
        map.forEach((k, v) -> m.put(Objects.requireNonNull(k, "attribute name"), normalize(k, v)));
        return new Attrs(m);
    }

    private static Object normalize(String name, Object v) {
        return switch (v) {
            case Integer i -> (long) i;
            case Long l -> l;
            case Float f -> (double) f;
            case Double d -> d;
            case Boolean b -> b;
            case String s -> s;
            case int[] a -> java.util.Arrays.stream(a).asLongStream().boxed().toList();
            case long[] a -> java.util.Arrays.stream(a).boxed().toList();
            case double[] a -> java.util.Arrays.stream(a).boxed().toList();
            case List<?> l when l.stream().allMatch(x -> x instanceof Long || x instanceof Integer) ->
                    l.stream().map(x -> ((Number) x).longValue()).toList();
            case List<?> l when l.stream().allMatch(x -> x instanceof Double || x instanceof Float) ->
                    l.stream().map(x -> ((Number) x).doubleValue()).toList();
            case null -> throw new IllegalArgumentException("attrs: '" + name + "' is null");
            default -> throw new IllegalArgumentException("attrs: '" + name + "' has unsupported type "
                    + v.getClass().getSimpleName() + " (use Long, Double, Boolean, String, List<Long> or List<Double>)");
        };
    }

    public Map<String, Object> asMap() {
        return Collections.unmodifiableMap(values);
    }

    public boolean has(String name) {
        return values.containsKey(name);
    }

    public long getLong(String name) {
        return get(name, Long.class);
    }

    public double getDouble(String name) {
        Object v = require(name);
        if (v instanceof Long l) {
            return l;
        }
        return get(name, Double.class);
    }

    public boolean getBoolean(String name) {
        return get(name, Boolean.class);
    }

    public String getString(String name) {
        return get(name, String.class);
    }

    public List<Long> getLongs(String name) {
        return list(name, Long.class);
    }

    public List<Double> getDoubles(String name) {
        return list(name, Double.class);
    }

    /** A list attribute whose elements are {@code element}s (normalised lists are homogeneous). */
    @SuppressWarnings("unchecked")
    private <T> List<T> list(String name, Class<T> element) {
        List<?> l = get(name, List.class);
        if (!l.isEmpty() && !element.isInstance(l.get(0))) {
            throw new IllegalArgumentException("attrs: '" + name + "' is a list of " + l.get(0).getClass().getSimpleName()
                    + ", not " + element.getSimpleName());
        }
        return (List<T>) l;
    }

    private Object require(String name) {
        Object v = values.get(name);
        if (v == null) {
            throw new IllegalArgumentException("attrs: no attribute '" + name + "' (have " + values.keySet() + ")");
        }
        return v;
    }

    private <T> T get(String name, Class<T> type) {
        Object v = require(name);
        if (!type.isInstance(v)) {
            throw new IllegalArgumentException("attrs: '" + name + "' is " + v.getClass().getSimpleName() + ", not "
                    + type.getSimpleName());
        }
        return type.cast(v);
    }

    public boolean isEmpty() {
        return values.isEmpty();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Attrs a && a.values.equals(values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() {
        return values.toString();
    }
}
