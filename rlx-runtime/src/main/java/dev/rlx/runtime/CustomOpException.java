package dev.rlx.runtime;

import dev.rlx.ir.RlxException;

/** A user-registered custom op kernel failed; the message names the op and the device. */
public final class CustomOpException extends RlxException {
    private final String opName;

    public CustomOpException(String opName, String message, Throwable cause) {
        super("custom op '" + opName + "': " + message, cause);
        this.opName = opName;
    }

    public String opName() {
        return opName;
    }
}
