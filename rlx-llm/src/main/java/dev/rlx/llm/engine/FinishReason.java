package dev.rlx.llm.engine;

/** Why a generation ended. */
public enum FinishReason {
    /** The model produced an end-of-generation token, a stop token or a stop string. */
    STOP,
    /** It produced {@link GenerationRequest#maxTokens()} tokens (or reached the context limit). */
    LENGTH,
    /** {@link Generation#cancel()} or {@link LlmEngine#close()} ended it. */
    CANCELLED,
    /** The model failed on a step that held this request; the engine went on with the others. */
    ERROR
}
