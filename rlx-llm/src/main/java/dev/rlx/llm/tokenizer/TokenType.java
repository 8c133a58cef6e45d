package dev.rlx.llm.tokenizer;

/** {@code tokenizer.ggml.token_type} values (llama.cpp's {@code llama_token_type}). */
public enum TokenType {
    UNDEFINED, NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE;

    static TokenType ofId(long id) {
        return id >= 0 && id < values().length ? values()[(int) id] : UNDEFINED;
    }

    /** Whether text is split around this token before tokenizing (llama.cpp's special-token cache). */
    boolean special() {
        return this == CONTROL || this == USER_DEFINED || this == UNKNOWN;
    }
}
