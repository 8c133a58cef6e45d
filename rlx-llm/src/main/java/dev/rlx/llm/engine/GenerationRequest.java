package dev.rlx.llm.engine;

import dev.rlx.llm.sample.SampleOpts;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * What to generate.
 *
 * @param prompt prompt token ids, at least one (copied)
 * @param sampling the sampler chain's settings (its seed makes a run repeatable)
 * @param maxTokens most tokens to generate; 0 = as many as the context length leaves
 * @param stop strings that end the generation; the text ends before the first one found (none empty)
 * @param stopTokens tokens that end the generation besides the vocabulary's end-of-generation tokens
 * @param topLogprobs most likely tokens to report with each event, 0 to {@link #MAX_TOP_LOGPROBS}
 */
public record GenerationRequest(int[] prompt, SampleOpts sampling, int maxTokens, List<String> stop,
                                Set<Integer> stopTokens, int topLogprobs) {
    /** Upper bound of {@link #topLogprobs()}. */
    public static final int MAX_TOP_LOGPROBS = 100;

    public GenerationRequest {
        if (prompt == null || prompt.length == 0) {
            throw invalid("the prompt has no tokens");
        }
        Objects.requireNonNull(sampling, "sampling");
        stop = List.copyOf(stop);
        stopTokens = Set.copyOf(stopTokens);
        if (maxTokens < 0) {
            throw invalid("maxTokens must be >= 0 (0 = up to the context length) but is " + maxTokens);
        }
        if (topLogprobs < 0 || topLogprobs > MAX_TOP_LOGPROBS) {
            throw invalid("topLogprobs must be in [0, " + MAX_TOP_LOGPROBS + "] but is " + topLogprobs);
        }
        for (String s : stop) {
            if (s.isEmpty()) {
                throw invalid("a stop string is empty");
            }
        }
        prompt = prompt.clone();
    }

    /** Greedy sampling, no stop strings or extra stop tokens, no logprobs. */
    public static GenerationRequest of(int[] prompt, int maxTokens) {
        return new GenerationRequest(prompt, SampleOpts.greedy(), maxTokens, List.of(), Set.of(), 0);
    }

    @Override
    public int[] prompt() {
        return prompt.clone();
    }

    int promptLength() {
        return prompt.length;
    }

    int[] promptShared() {
        return prompt;
    }

    public GenerationRequest withPrompt(int[] v) {
        return new GenerationRequest(v, sampling, maxTokens, stop, stopTokens, topLogprobs);
    }

    public GenerationRequest withSampling(SampleOpts v) {
        return new GenerationRequest(prompt, v, maxTokens, stop, stopTokens, topLogprobs);
    }

    public GenerationRequest withMaxTokens(int v) {
        return new GenerationRequest(prompt, sampling, v, stop, stopTokens, topLogprobs);
    }

    public GenerationRequest withStop(List<String> v) {
        return new GenerationRequest(prompt, sampling, maxTokens, v, stopTokens, topLogprobs);
    }

    public GenerationRequest withStopTokens(Set<Integer> v) {
        return new GenerationRequest(prompt, sampling, maxTokens, stop, v, topLogprobs);
    }

    public GenerationRequest withTopLogprobs(int v) {
        return new GenerationRequest(prompt, sampling, maxTokens, stop, stopTokens, v);
    }

    private static EngineException invalid(String what) {
        return new EngineException(EngineException.Reason.INVALID_REQUEST,
                String.format(Locale.ROOT, "[GenerationRequest] %s", what));
    }
}
