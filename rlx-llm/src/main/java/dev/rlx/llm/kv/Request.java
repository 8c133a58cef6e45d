package dev.rlx.llm.kv;

import java.util.Locale;

/**
 * A generation request for the {@link Scheduler}: a prompt to prefill and up to {@code maxNewTokens} tokens
 * to generate, stopping early when the model produces {@code eosToken}.
 *
 * @param id caller's id, unique among the scheduler's unfinished requests (also the cache sequence id)
 * @param prompt prompt token ids, at least one (copied)
 * @param maxNewTokens tokens to generate at most, at least 1
 * @param eosToken token that ends generation, or a negative value for none
 */
public record Request(long id, int[] prompt, int maxNewTokens, int eosToken) {
    public Request {
        if (prompt == null || prompt.length == 0) {
            throw bad("request %d needs at least one prompt token", id);
        }
        if (maxNewTokens < 1) {
            throw bad("request %d: maxNewTokens must be >= 1 but is %d", id, maxNewTokens);
        }
        prompt = prompt.clone();
    }

    /** A request with no end-of-sequence token: it generates exactly {@code maxNewTokens}. */
    public static Request of(long id, int[] prompt, int maxNewTokens) {
        return new Request(id, prompt, maxNewTokens, -1);
    }

    /** The prompt (a copy). */
    @Override
    public int[] prompt() {
        return prompt.clone();
    }

    int promptLength() {
        return prompt.length;
    }

    int promptToken(int i) {
        return prompt[i];
    }

    /** Most tokens whose K/V the cache holds at once: the prompt and all but the last generated token. */
    long maxCachedTokens() {
        return (long) prompt.length + maxNewTokens - 1;
    }

    private static KvCacheException bad(String format, Object... args) {
        return new KvCacheException(KvCacheException.Reason.BAD_ARGUMENT,
                "[Request] " + String.format(Locale.ROOT, format, args));
    }
}
