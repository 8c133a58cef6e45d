package dev.rlx.runtime;

/**
 * Settings for one compilation. Immutable; start from {@link #defaults()} and use the {@code with...}
 * methods.
 *
 * @param alignment         byte alignment of every buffer in the arena (a power of two; default 64, a cache
 *                          line and an AVX-512 vector)
 * @param threads           worker threads for backends that compute on host cores; 0 means the backend's
 *                          default (the {@code RLX_THREADS} variable, else all cores)
 * @param deadCodeElimination drop nodes no output depends on (default true)
 * @param rng               generator and seed of the graph's random-number ops (default {@link RngOptions#defaults()})
 */
public record CompileOptions(int alignment, int threads, boolean deadCodeElimination, RngOptions rng) {
    public CompileOptions {
        java.util.Objects.requireNonNull(rng, "rng");
        if (alignment <= 0 || Integer.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("alignment must be a power of two but is " + alignment);
        }
        if (threads < 0) {
            throw new IllegalArgumentException("threads must be >= 0 (0 = default) but is " + threads);
        }
    }

    /** Options with the default random-number generator. */
    public CompileOptions(int alignment, int threads, boolean deadCodeElimination) {
        this(alignment, threads, deadCodeElimination, RngOptions.defaults());
    }

    public static CompileOptions defaults() {
        return new CompileOptions(64, 0, true);
    }

    public CompileOptions withAlignment(int a) {
        return new CompileOptions(a, threads, deadCodeElimination, rng);
    }

    public CompileOptions withThreads(int t) {
        return new CompileOptions(alignment, t, deadCodeElimination, rng);
    }

    public CompileOptions withDeadCodeElimination(boolean on) {
        return new CompileOptions(alignment, threads, on, rng);
    }

    /** The generator and seed for random-number ops; see {@link RngOptions}. */
    public CompileOptions withRng(RngOptions r) {
        return new CompileOptions(alignment, threads, deadCodeElimination, r);
    }
}
