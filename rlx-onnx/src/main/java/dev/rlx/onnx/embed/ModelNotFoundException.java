package dev.rlx.onnx.embed;

import dev.rlx.ir.RlxException;

/** A packaged model is not on the class path; the message names the resource and the Maven artifact to add. */
public final class ModelNotFoundException extends RlxException {
    public ModelNotFoundException(String message) {
        super(message);
    }
}
