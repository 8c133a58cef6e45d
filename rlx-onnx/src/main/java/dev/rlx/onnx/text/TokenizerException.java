package dev.rlx.onnx.text;

import dev.rlx.ir.RlxException;

/**
 * A tokenizer file is malformed or asks for something this tokenizer does not do (another model type,
 * normaliser or pre-tokenizer), or a setting is out of range. The message names the file and the field.
 */
public final class TokenizerException extends RlxException {
    public TokenizerException(String message) {
        super(message);
    }

    public TokenizerException(String message, Throwable cause) {
        super(message, cause);
    }
}
