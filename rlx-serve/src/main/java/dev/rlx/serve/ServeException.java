package dev.rlx.serve;

import dev.rlx.ir.RlxException;

/** The server could not be configured or started (a bad option, a port in use); the message names the thing. */
public final class ServeException extends RlxException {
    public ServeException(String message) {
        super(message);
    }

    public ServeException(String message, Throwable cause) {
        super(message, cause);
    }
}
