package dev.rlx.llm.tokenizer;

import dev.rlx.ir.RlxException;

/** The tokenizer metadata of a model is missing or inconsistent, or a token id is out of range. */
public final class TokenizerException extends RlxException {
    public TokenizerException(String message) {
        super(message);
    }
}
