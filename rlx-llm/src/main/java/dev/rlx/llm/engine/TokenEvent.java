package dev.rlx.llm.engine;

import java.util.List;

/**
 * One generated token as it streams out.
 *
 * @param token the token id
 * @param text the valid UTF-8 text this token releases; may be "" while bytes of a character are incomplete or
 *     while the text could be the start of a stop string (it comes out with a later event, or never when the
 *     stop string completes)
 * @param logprob natural log of the token's probability under the raw logits (log-softmax, no sampling stage)
 * @param top the {@link GenerationRequest#topLogprobs()} most likely tokens, most likely first; empty when none
 *     were asked for
 */
public record TokenEvent(int token, String text, float logprob, List<TopLogprob> top) {
    public TokenEvent {
        top = List.copyOf(top);
    }
}
