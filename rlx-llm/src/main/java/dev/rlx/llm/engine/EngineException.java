package dev.rlx.llm.engine;

import dev.rlx.ir.RlxException;
import java.util.Objects;

/**
 * The engine refused a request or a call. {@link #reason()} says what kind of refusal it is, so a server can map it
 * (QUEUE_FULL to 503/429, CONTEXT_EXCEEDED and INVALID_REQUEST to 400) without parsing the message, which names
 * the request and the numbers involved.
 */
public final class EngineException extends RlxException {
    /** What went wrong. */
    public enum Reason {
        /** The queue of waiting requests is full ({@link EngineOptions#queueCapacity()}). */
        QUEUE_FULL,
        /** Prompt plus output would exceed the context length or the whole KV cache. */
        CONTEXT_EXCEEDED,
        /** A request that can never be valid (empty prompt, a token outside the vocabulary, a bad limit). */
        INVALID_REQUEST,
        /** The engine is closed. */
        CLOSED,
        /** The model could not be loaded or failed. */
        MODEL_ERROR
    }

    private final Reason reason;

    public EngineException(Reason reason, String message) {
        super(message);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    public EngineException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    public Reason reason() {
        return reason;
    }
}
