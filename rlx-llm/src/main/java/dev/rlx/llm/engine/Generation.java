package dev.rlx.llm.engine;

/**
 * A submitted request: its tokens stream out through {@link #next()}, its result through {@link #await()}.
 * Thread-safe; one consumer should call {@code next()}.
 */
public interface Generation {
    /** The engine's id of this request. */
    long id();

    /**
     * The next generated token, blocking until there is one; null after the last (then {@link #await()} returns
     * at once). Every sampled token gives one event, the one that ends the generation (end-of-generation or stop
     * token, completed stop string) included; its text is what is left to release, never the stop token's piece
     * or the stop string.
     */
    TokenEvent next() throws InterruptedException;

    /** Waits for the end and returns the result (events not taken by {@link #next()} stay available). */
    GenerationResult await() throws InterruptedException;

    /** Ends the request with {@link FinishReason#CANCELLED}; its sequence and KV blocks are freed at the next step. */
    void cancel();
}
