package dev.rlx.llm.engine;

/**
 * A finished generation.
 *
 * @param text the generated text (decoded tokens, ending before a stop string, without the stop token's text)
 * @param tokens every sampled token, the stop token included when one ended the generation
 * @param finish why it ended
 * @param promptTokens tokens in the prompt
 * @param completionTokens {@code tokens.length}
 * @param queuedNanos from submit to the first step that ran the request
 * @param firstTokenNanos from submit to the first generated token (0 when none was)
 * @param totalNanos from submit to the end
 */
public record GenerationResult(String text, int[] tokens, FinishReason finish, int promptTokens,
                               int completionTokens, long queuedNanos, long firstTokenNanos, long totalNanos) {
    public GenerationResult {
        tokens = tokens.clone();
    }

    @Override
    public int[] tokens() {
        return tokens.clone();
    }
}
