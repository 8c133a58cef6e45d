package dev.rlx.llm.sample;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Samplers applied in order, as llama.cpp's sampler chain. {@link #sample(float[])} is the decode-loop call:
 * it fills a candidate list it keeps (allocated once, for the largest vocabulary seen), applies every sampler,
 * takes the selected token, tells every sampler through {@code accept}, and returns the token.
 *
 * <p>The fast path: when the chain starts with top-k (as llama.cpp's default chain and every "classic" one,
 * see {@link SampleOpts#isClassic()}, do once disabled stages are left out), the candidates are filled with
 * the top k straight from the logits by a heap ({@link Candidates#resetTop}) instead of copying the vocabulary
 * and then selecting; the result is the same. Together with {@link Samplers#topP}, which sorts only the
 * nucleus, classic options never sort the vocabulary.
 *
 * <pre>{@code
 * SamplerChain chain = SamplerChain.builder().add(Samplers.topK(40)).add(Samplers.temperature(0.8f))
 *         .add(Samplers.dist(1234)).build();
 * int token = chain.sample(logits);
 * }</pre>
 *
 * <p>Not thread-safe: one chain per sequence.
 */
public final class SamplerChain {
    private final Sampler[] samplers;
    private final int directTopK; // k when sample() fills the candidates with the top k straight from the logits
    private Candidates candidates;

    private SamplerChain(List<Sampler> samplers, boolean allowDirectTopK) {
        this.samplers = samplers.toArray(Sampler[]::new);
        this.directTopK = allowDirectTopK && this.samplers.length > 0 && this.samplers[0] instanceof TopK t
                ? Math.max(0, t.k()) : 0;
    }

    public static Builder builder() {
        return new Builder();
    }

    static SamplerChain of(List<Sampler> samplers, boolean allowDirectTopK) {
        return new SamplerChain(samplers, allowDirectTopK);
    }

    /**
     * Samples one token from {@code logits} (token ids are indices), then accepts it.
     *
     * @throws SamplingException if no sampler selected a token (the chain lacks dist, greedy or mirostat)
     * @throws SamplingException if {@code logits} is null or empty, or a logit is NaN (naming its index)
     */
    public int sample(float[] logits) {
        if (logits == null || logits.length == 0) {
            throw new SamplingException("logits", -1, "logits is " + (logits == null ? "null" : "empty")
                    + ": there is no token to sample");
        }
        if (candidates == null || candidates.capacity() < logits.length) {
            candidates = new Candidates(Math.max(1, logits.length));
        }
        int first = 0;
        if (directTopK > 0) {
            candidates.resetTop(logits, directTopK); // equals reset + top-k, without copying the vocabulary
            first = 1;
        } else {
            candidates.reset(logits);
        }
        for (int i = first; i < samplers.length; i++) {
            samplers[i].apply(candidates);
        }
        int token = candidates.selectedToken();
        accept(token);
        return token;
    }

    /** Applies every sampler to {@code c}, in order (no accept). */
    public void apply(Candidates c) {
        for (Sampler s : samplers) {
            s.apply(c);
        }
    }

    /** Tells every sampler that {@code token} was generated (or is part of the prompt). */
    public void accept(int token) {
        for (Sampler s : samplers) {
            s.accept(token);
        }
    }

    /** Restores every sampler's initial state (history, generators, mirostat μ). */
    public void reset() {
        for (Sampler s : samplers) {
            s.reset();
        }
    }

    public List<Sampler> samplers() {
        return List.of(samplers);
    }

    /** Whether {@link #sample} fills the candidates with the top k straight from the logits (the fast path). */
    public boolean usesFastPath() {
        return directTopK > 0;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("chain[");
        for (int i = 0; i < samplers.length; i++) {
            sb.append(i == 0 ? "" : " -> ").append(samplers[i].name());
        }
        return sb.append(directTopK > 0 ? "; top-k from the logits]" : "]").toString();
    }

    /** Collects samplers in order. */
    public static final class Builder {
        private final List<Sampler> samplers = new ArrayList<>();

        private Builder() {}

        public Builder add(Sampler s) {
            samplers.add(Objects.requireNonNull(s, "sampler"));
            return this;
        }

        public SamplerChain build() {
            return new SamplerChain(samplers, true);
        }
    }
}
