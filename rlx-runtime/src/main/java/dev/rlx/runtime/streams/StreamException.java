package dev.rlx.runtime.streams;

import dev.rlx.ir.RlxException;

/** Work on a command stream failed or was interrupted. */
public class StreamException extends RlxException {
    public StreamException(String message, Throwable cause) {
        super(message, cause);
    }
}
