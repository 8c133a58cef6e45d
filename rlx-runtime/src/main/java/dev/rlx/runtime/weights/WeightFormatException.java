package dev.rlx.runtime.weights;

import dev.rlx.ir.RlxException;

/** A weight file is malformed; the message names the file, the tensor and the offsets involved. */
public final class WeightFormatException extends RlxException {
    public WeightFormatException(String message) {
        super(message);
    }

    public WeightFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
