package dev.rlx.llm.sample;

/**
 * One step of token sampling, as a llama.cpp {@code llama_sampler}: it transforms the {@link Candidates} in
 * place (changes logits, truncates, sorts, computes probabilities) or selects one. Samplers with history
 * (penalties, DRY) learn the accepted tokens through {@link #accept}; {@link #reset} restores the state the
 * sampler was built with (history cleared, random generator re-seeded, mirostat's μ back to 2τ).
 *
 * <p>Implementations allocate nothing per token after their first call unless documented. Not thread-safe.
 */
public interface Sampler {
    void apply(Candidates candidates);

    /** Records {@code token} as generated (or as a prompt token), for history-based samplers. */
    default void accept(int token) {}

    default void reset() {}

    /** llama.cpp's name for the sampler, e.g. {@code top-k}. */
    String name();
}
