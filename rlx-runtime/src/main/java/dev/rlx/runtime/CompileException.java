package dev.rlx.runtime;

import dev.rlx.ir.RlxException;

/** A backend failed to compile a graph it had accepted. */
public final class CompileException extends RlxException {
    public CompileException(String message) {
        super(message);
    }

    public CompileException(String message, Throwable cause) {
        super(message, cause);
    }
}
