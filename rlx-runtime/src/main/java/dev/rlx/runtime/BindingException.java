package dev.rlx.runtime;

import dev.rlx.ir.RlxException;

/**
 * A call named an input, param or output that does not exist, or gave data of the wrong size or type.
 * The compiled graph is unchanged and stays usable.
 */
public final class BindingException extends RlxException {
    public BindingException(String message) {
        super(message);
    }
}
