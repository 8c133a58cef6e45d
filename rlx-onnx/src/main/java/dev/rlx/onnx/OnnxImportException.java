package dev.rlx.onnx;

import dev.rlx.ir.RlxException;

/**
 * A well-formed ONNX model cannot be imported as asked: an attribute out of range, operands the op's rule
 * rejects, a shape input whose value is not known at import time. The message names the node
 * ({@code node #12 'Reshape_3' (Reshape)}).
 */
public class OnnxImportException extends RlxException {
    public OnnxImportException(String message) {
        super(message);
    }

    public OnnxImportException(String message, Throwable cause) {
        super(message, cause);
    }
}
