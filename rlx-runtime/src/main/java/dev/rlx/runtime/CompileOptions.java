package dev.rlx.runtime;

import dev.rlx.ir.limits.Limits;
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
 * @param limits    the bounds a compiled graph is held to before anything is allocated: its arena
 *                  ({@link Limits#arenaBytes()}), each input ({@link Limits#tensorBytes()}) and, for the weight
 *                  set a session makes for it, its weights ({@link Limits#weightBytes()}); default
 *                  {@link Limits#defaults()}
 */
public record CompileOptions(int alignment, int threads, boolean optimize, PrecisionPolicy precision, RngOptions rng,
                             Limits limits) {
    public CompileOptions {
        if (alignment <= 0 || Integer.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("alignment must be a power of two but is " + alignment);
        }
        if (threads < 0) {
            throw new IllegalArgumentException("threads must be >= 0 (0 = default) but is " + threads);
        }
        Objects.requireNonNull(precision, "precision");
        Objects.requireNonNull(rng, "rng");
        Objects.requireNonNull(limits, "limits");
    }

    /** Options with the process-wide {@link Limits#defaults()}. */
    public CompileOptions(int alignment, int threads, boolean optimize, PrecisionPolicy precision, RngOptions rng) {
        this(alignment, threads, optimize, precision, rng, Limits.defaults());
    }

    public static CompileOptions defaults() {
        return new CompileOptions(64, 0, true, PrecisionPolicy.F32, RngOptions.defaults());
    }

    public CompileOptions withLimits(Limits l) {
        return new CompileOptions(alignment, threads, optimize, precision, rng, l);
    }

    public CompileOptions withAlignment(int a) {
        return new CompileOptions(a, threads, optimize, precision, rng, limits);
    }

    public CompileOptions withThreads(int t) {
        return new CompileOptions(alignment, t, optimize, precision, rng, limits);
    }

    public CompileOptions withOptimize(boolean on) {
        return new CompileOptions(alignment, threads, on, precision, rng, limits);
    }

    public CompileOptions withPrecision(PrecisionPolicy p) {
        return new CompileOptions(alignment, threads, optimize, p, rng, limits);
    }

    public CompileOptions withRng(RngOptions r) {
        return new CompileOptions(alignment, threads, optimize, precision, r, limits);
    }

    /**
     * What of these options decides the compiled program, as text (the compile-cache key): everything but the
     * limits, which are checked when a graph is instantiated, so programs cached under other limits are shared.
     */
    String programKey() {
        return "CompileOptions[alignment=" + alignment + ", threads=" + threads + ", optimize=" + optimize
                + ", precision=" + precision + ", rng=" + rng + "]";
    }
}
