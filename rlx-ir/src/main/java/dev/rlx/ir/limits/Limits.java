package dev.rlx.ir.limits;

import java.lang.management.ManagementFactory;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Upper bounds on what untrusted input (a model file, a tensor, a request) may make RLX allocate or build. Every
 * loader and the compiler check the size they are about to allocate against these before allocating, and throw
 * {@link LimitExceededException} naming the limit and the size asked.
 *
 * <p>Defaults are derived from the machine: memory limits from the physical memory (or the container's), counts
 * from fixed bounds far above real models. Each can be overridden by a system property ({@code rlx.limits.*}),
 * an environment variable ({@code RLX_MAX_*}), or {@link #builder()}; {@link #defaults()} reads the first two
 * once per process.
 */
public final class Limits {
    /** One kind of bound, with its unit and where it is configured. */
    public enum Kind {
        ARENA_BYTES("bytes", "the activation memory of one compiled graph", "arenaBytes"),
        WEIGHT_BYTES("bytes", "the weights of one model or weight set", "weightBytes"),
        TENSOR_BYTES("bytes", "one tensor read from a file or given as input data", "tensorBytes"),
        GRAPH_NODES("nodes", "nodes of one graph after import and loop unrolling", "graphNodes"),
        HEADER_BYTES("bytes", "a file header (safetensors JSON, .npy header, serialized graph metadata)",
                "headerBytes"),
        TENSOR_COUNT("tensors", "tensors named in one file header", "tensorCount"),
        RANK("dimensions", "dimensions of one tensor shape", "rank"),
        KV_CACHE_BYTES("bytes", "the blocks of one KV cache", "kvCacheBytes");

        private final String unit;
        private final String description;
        private final String builderMethod;

        Kind(String unit, String description, String builderMethod) {
            this.unit = unit;
            this.description = description;
            this.builderMethod = builderMethod;
        }

        public String unit() {
            return unit;
        }

        public String description() {
            return description;
        }

        String builderMethod() {
            return builderMethod;
        }

        /** The system property that overrides the default, e.g. {@code rlx.limits.arenaBytes}. */
        public String property() {
            return "rlx.limits." + builderMethod;
        }

        /** The environment variable that overrides the default, e.g. {@code RLX_MAX_ARENA_BYTES}. */
        public String envVar() {
            return "RLX_MAX_" + name();
        }
    }

    private static volatile Limits defaults;

    private final Map<Kind, Long> values;

    private Limits(Map<Kind, Long> values) {
        this.values = new EnumMap<>(values);
    }

    /** The process-wide limits: machine-derived defaults, overridden by system properties and environment. */
    public static Limits defaults() {
        Limits d = defaults;
        if (d == null) {
            synchronized (Limits.class) {
                d = defaults;
                if (d == null) {
                    d = fromEnvironment(System.getenv());
                    defaults = d;
                }
            }
        }
        return d;
    }

    /** Limits read from {@code env} and the system properties over the machine defaults (tests pass a map). */
    public static Limits fromEnvironment(Map<String, String> env) {
        Builder b = machineDefaults();
        for (Kind k : Kind.values()) {
            String v = System.getProperty(k.property());
            String source = k.property();
            if (v == null) {
                v = env.get(k.envVar());
                source = k.envVar();
            }
            if (v != null) {
                b.set(k, parseSize(v, source));
            }
        }
        return b.build();
    }

    /** A builder starting from the machine-derived defaults. */
    public static Builder builder() {
        return machineDefaults();
    }

    /** A builder starting from these limits. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.values.putAll(values);
        return b;
    }

    public long get(Kind kind) {
        return values.get(kind);
    }

    public long arenaBytes() {
        return get(Kind.ARENA_BYTES);
    }

    public long weightBytes() {
        return get(Kind.WEIGHT_BYTES);
    }

    public long tensorBytes() {
        return get(Kind.TENSOR_BYTES);
    }

    public long graphNodes() {
        return get(Kind.GRAPH_NODES);
    }

    public long headerBytes() {
        return get(Kind.HEADER_BYTES);
    }

    public long tensorCount() {
        return get(Kind.TENSOR_COUNT);
    }

    public long rank() {
        return get(Kind.RANK);
    }

    public long kvCacheBytes() {
        return get(Kind.KV_CACHE_BYTES);
    }

    /**
     * Throws {@link LimitExceededException} when {@code asked} (negative meaning it overflowed a long) is over
     * the limit of {@code kind}; {@code what} names the thing asking ("arena of graph 'bert'", "tensor 'w' in
     * model.safetensors at offset 120").
     */
    public void check(Kind kind, String what, long asked) {
        long limit = get(kind);
        if (asked < 0 || asked > limit) {
            throw new LimitExceededException(kind, what, asked < 0 ? Long.MAX_VALUE : asked, limit);
        }
    }

    @Override
    public String toString() {
        return "Limits" + values;
    }

    /** Mutable builder; values are in the kind's unit. */
    public static final class Builder {
        private final Map<Kind, Long> values = new EnumMap<>(Kind.class);

        private Builder() {}

        public Builder set(Kind kind, long value) {
            Objects.requireNonNull(kind, "kind");
            if (value < 0) {
                throw new IllegalArgumentException("limit " + kind + " must be >= 0, got " + value);
            }
            values.put(kind, value);
            return this;
        }

        public Builder arenaBytes(long v) {
            return set(Kind.ARENA_BYTES, v);
        }

        public Builder weightBytes(long v) {
            return set(Kind.WEIGHT_BYTES, v);
        }

        public Builder tensorBytes(long v) {
            return set(Kind.TENSOR_BYTES, v);
        }

        public Builder graphNodes(long v) {
            return set(Kind.GRAPH_NODES, v);
        }

        public Builder headerBytes(long v) {
            return set(Kind.HEADER_BYTES, v);
        }

        public Builder tensorCount(long v) {
            return set(Kind.TENSOR_COUNT, v);
        }

        public Builder rank(long v) {
            return set(Kind.RANK, v);
        }

        public Builder kvCacheBytes(long v) {
            return set(Kind.KV_CACHE_BYTES, v);
        }

        public Limits build() {
            return new Limits(values);
        }
    }

    private static Builder machineDefaults() {
        long mem = physicalMemoryBytes();
        Builder b = new Builder();
        // A single graph's activations or one tensor beyond half the machine's memory cannot run here anyway;
        // weights may be memory-mapped, so they get the whole of it.
        b.values.put(Kind.ARENA_BYTES, mem / 2);
        b.values.put(Kind.WEIGHT_BYTES, mem);
        b.values.put(Kind.TENSOR_BYTES, mem / 2);
        b.values.put(Kind.KV_CACHE_BYTES, mem / 2);
        b.values.put(Kind.GRAPH_NODES, 2_000_000L);
        b.values.put(Kind.HEADER_BYTES, 64L << 20);
        b.values.put(Kind.TENSOR_COUNT, 1_000_000L);
        b.values.put(Kind.RANK, 64L);
        return b;
    }

    private static long physicalMemoryBytes() {
        try {
            if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean m) {
                long total = m.getTotalMemorySize();
                if (total > 0) {
                    return total;
                }
            }
        } catch (RuntimeException | LinkageError e) {
            // fall through to a conservative figure
        }
        return 8L << 30;
    }

    static long parseSize(String text, String source) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        long mul = 1;
        if (t.endsWith("k") || t.endsWith("kb")) {
            mul = 1L << 10;
        } else if (t.endsWith("m") || t.endsWith("mb")) {
            mul = 1L << 20;
        } else if (t.endsWith("g") || t.endsWith("gb")) {
            mul = 1L << 30;
        } else if (t.endsWith("t") || t.endsWith("tb")) {
            mul = 1L << 40;
        }
        String digits = t.replaceAll("[a-z]+$", "");
        try {
            long v = Long.parseLong(digits);
            if (v < 0 || v > Long.MAX_VALUE / mul) {
                throw new NumberFormatException();
            }
            return v * mul;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(source + "=" + text + " is not a size (a whole number, optionally"
                    + " followed by k, m, g or t)");
        }
    }
}
