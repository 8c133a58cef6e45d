package dev.rlx.onnx;

import dev.rlx.ir.RlxException;

/**
 * An ONNX file (or tensor file) is malformed: truncated, a field of the wrong wire type, a tensor whose data
 * disagrees with its dims, a negative or oversized dim, an external data path that leaves the model folder.
 * The message names where: the element being read ({@code graph 'main' > node #3 'conv1' > attribute
 * 'pads'}) and the byte offset.
 */
public final class OnnxFormatException extends RlxException {
    private final String where;

    public OnnxFormatException(String where, String message) {
        super("malformed ONNX data at " + where + ": " + message);
        this.where = where;
    }

    public OnnxFormatException(String where, String message, Throwable cause) {
        super("malformed ONNX data at " + where + ": " + message, cause);
        this.where = where;
    }

    /** The element path and byte offset where reading failed. */
    public String where() {
        return where;
    }
}
