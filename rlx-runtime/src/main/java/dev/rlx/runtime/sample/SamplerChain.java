package dev.rlx.runtime.sample;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Samplers applied in order, as llama.cpp's sampler chain. {@link #sample(float[])} is the decode-loop call:
 * it fills a candidate list it keeps (allocated once, for the largest vocabulary seen), applies every sampler,
 * takes the selected token, tells every sampler through {@code accept}, and returns the token. A chain built
 * (A chain that starts with top-k, as the default one does once disabled stages are left out, fills the list
 * with the top k straight from the logits.) A chain built
 * by {@link SampleOpts#intoChain()} from "classic" options (only top-k, top-p, temperature) samples through a
 * fast path that reads the logits directly and never sorts the vocabulary; it gives the same tokens as the
 * samplers listed.
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
    private final ClassicSampler fast;
    private Candidates candidates;

    private SamplerChain(List<Sampler> samplers, ClassicSampler fast) {
        this.samplers = samplers.toArray(Sampler[]::new);
        this.fast = fast;
    }

    public static Builder builder() {
        return new Builder();
    }

    static SamplerChain of(List<Sampler> samplers, ClassicSampler fast) {
        return new SamplerChain(samplers, fast);
    }

    /**
     * Samples one token from {@code logits} (token ids are indices), then accepts it.
     *
     * @throws IllegalStateException if no sampler selected a token (the chain lacks dist, greedy or mirostat)
     * @throws IllegalArgumentException if a logit is NaN
     */
    public int sample(float[] logits) {
        int token;
        if (fast != null) {
            token = fast.sample(logits);
        } else {
            if (candidates == null || candidates.capacity() < logits.length) {
                candidates = new Candidates(Math.max(1, logits.length));
            }
            int first = 0;
            if (samplers.length > 0 && samplers[0] instanceof TopK t && t.k() > 0) {
                candidates.resetTop(logits, t.k()); // reset + top-k without copying the vocabulary
                first = 1;
            } else {
                candidates.reset(logits);
            }
            for (int i = first; i < samplers.length; i++) {
                samplers[i].apply(candidates);
            }
            token = candidates.selectedToken();
        }
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
        if (fast != null) {
            fast.reset();
        }
    }

    public List<Sampler> samplers() {
        return List.of(samplers);
    }

    /** Whether {@link #sample} takes the classic fast path. */
    public boolean usesFastPath() {
        return fast != null;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("chain[");
        for (int i = 0; i < samplers.length; i++) {
            sb.append(i == 0 ? "" : " -> ").append(samplers[i].name());
        }
        return sb.append(fast != null ? "; classic fast path]" : "]").toString();
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
            return new SamplerChain(samplers, null);
        }
    }
}
