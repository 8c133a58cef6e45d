package dev.rlx.runtime;

import dev.rlx.opt.PrecisionPolicy;
import java.util.Objects;

/**
 * Settings for one compilation. Immutable; start from {@link #defaults()} and use the {@code with...}
 * methods. Part of the compile-cache key.
 *
 * @param alignment byte alignment of every buffer in the arena (a power of two; default 64, a cache line and
 *                  an AVX-512 vector)
 * @param threads   worker threads for backends that compute on host cores; 0 means the backend's default
 *                  (the {@code RLX_THREADS} variable, else all cores)
 * @param optimize  run the optimising passes (default true): simplification, constant folding, common
 *                  subexpressions, dead code, fusion, in-place execution. False keeps the graph as built.
 * @param precision the {@link PrecisionPolicy} (default {@link PrecisionPolicy#F32})
 * @param rng       generator and seed of the graph's random-number ops (default {@link RngOptions#defaults()})
 */
public record CompileOptions(int alignment, int threads, boolean optimize, PrecisionPolicy precision, RngOptions rng) {
    public CompileOptions {
        if (alignment <= 0 || Integer.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("alignment must be a power of two but is " + alignment);
        }
        if (threads < 0) {
            throw new IllegalArgumentException("threads must be >= 0 (0 = default) but is " + threads);
        }
        Objects.requireNonNull(precision, "precision");
        Objects.requireNonNull(rng, "rng");
    }

    public static CompileOptions defaults() {
        return new CompileOptions(64, 0, true, PrecisionPolicy.F32, RngOptions.defaults());
    }

    public CompileOptions withAlignment(int a) {
        return new CompileOptions(a, threads, optimize, precision, rng);
    }

    public CompileOptions withThreads(int t) {
        return new CompileOptions(alignment, t, optimize, precision, rng);
    }

    public CompileOptions withOptimize(boolean on) {
        return new CompileOptions(alignment, threads, on, precision, rng);
    }

    public CompileOptions withPrecision(PrecisionPolicy p) {
        return new CompileOptions(alignment, threads, optimize, p, rng);
    }

    public CompileOptions withRng(RngOptions r) {
        return new CompileOptions(alignment, threads, optimize, precision, r);
    }
}
