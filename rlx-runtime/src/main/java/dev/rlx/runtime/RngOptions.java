package dev.rlx.runtime;

import java.util.Objects;

/**
 * How a compiled graph draws the values of its random-number ops ({@code RngNormal}, {@code RngUniform}):
 * which generator, the seed for nodes without their own, and whether successive runs continue the stream.
 * Set at compile time with {@link CompileOptions#withRng} and changed later, without recompiling, with
 * {@link CompiledGraph#setRng}.
 *
 * <p><b>Stream rule.</b> Each RNG node has its own stream, derived from a base seed (the node's own seed
 * when it has one, else {@link #seed()}) and the node's key (see {@link #streamSeed}). With
 * {@code advanceAcrossRuns} the second run draws the values that follow those of the first, as ONNX Runtime
 * does (the default for {@link #ort}); without it every run repeats the first run's values, so a seed
 * reproduces a run exactly (the default for {@link #philox}). Setting the options again ({@code setRng})
 * restarts every stream.
 *
 * @param generator         the algorithm
 * @param seed              seed of nodes that have none of their own
 * @param advanceAcrossRuns whether run {@code n+1} continues where run {@code n} stopped
 */
public record RngOptions(Generator generator, long seed, boolean advanceAcrossRuns) {

    /** The random-number generators a backend provides. */
    public enum Generator {
        /**
         * Philox4x32-10 (Salmon et al., SC'11, canonical Random123 constants): counter-based, so element
         * {@code i} of run {@code r} is a pure function of (stream seed, i, r), whatever the thread count or
         * chunking. Uniform {@code low + u·(high−low)} with {@code u = (w >>> 8)·2⁻²⁴}; normal by Box–Muller
         * (both branches, double precision, {@code StrictMath}).
         */
        PHILOX,
        /**
         * Bit for bit what ONNX Runtime's CPU provider on Linux produces: {@code std::minstd_rand0} seeded
         * with the node's seed truncated to 32 bits, libstdc++'s {@code uniform_real_distribution} and
         * {@code normal_distribution} (Marsaglia polar), glibc's {@code logf}. Sequential; checked against ONNX
         * Runtime for f32 outputs.
         */
        ORT,
        /** No randomness: every element is the distribution's mean ({@code mean}, or {@code (low+high)/2}). */
        ZERO
    }

    /** Golden-ratio increment (2⁶⁴/φ) that spreads node keys over the seed space. */
    private static final long KEY_STRIDE = 0x9E3779B97F4A7C15L;

    public RngOptions {
        Objects.requireNonNull(generator, "generator");
    }

    /** Philox with {@code seed}; every run repeats (use {@link #withAdvanceAcrossRuns} to continue streams). */
    public static RngOptions philox(long seed) {
        return new RngOptions(Generator.PHILOX, seed, false);
    }

    /** The ONNX Runtime-compatible generator with {@code seed} for unseeded nodes; runs advance, as in ORT. */
    public static RngOptions ort(long seed) {
        return new RngOptions(Generator.ORT, seed, true);
    }

    /** The deterministic generator that writes means. */
    public static RngOptions zero() {
        return new RngOptions(Generator.ZERO, 0, false);
    }

    /** {@code philox(42)}. */
    public static RngOptions defaults() {
        return philox(42);
    }

    public RngOptions withAdvanceAcrossRuns(boolean advance) {
        return new RngOptions(generator, seed, advance);
    }

    /**
     * The 64-bit seed of one node's Philox stream: {@code base + key·0x9E3779B97F4A7C15} (wrapping), where
     * {@code base} is the node's own seed if it has one, else {@link #seed()}. Distinct keys give independent
     * streams even for equal seeds.
     */
    public long streamSeed(long nodeSeed, boolean hasSeed, long key) {
        return (hasSeed ? nodeSeed : seed) + key * KEY_STRIDE;
    }

    /**
     * The 32-bit engine seed of one node under {@link Generator#ORT}: the node's seed truncated to 32 bits
     * (ORT's {@code static_cast<uint32_t>(seed)}), else the low 32 bits of {@code seed + key}.
     */
    public int ortEngineSeed(long nodeSeed, boolean hasSeed, long key) {
        return (int) (hasSeed ? nodeSeed : seed + key);
    }
}
