package dev.rlx.llm.engine;

/**
 * One of the most likely tokens at a step.
 *
 * @param token the token id
 * @param text its piece as text (bytes of a partial UTF-8 character become U+FFFD)
 * @param logprob natural log of its probability under the raw logits (no sampling stage applied)
 */
public record TopLogprob(int token, String text, float logprob) {}
