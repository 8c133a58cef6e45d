package dev.rlx.llm.gguf;

import dev.rlx.ir.RlxException;

/**
 * A GGUF file is malformed or asks for more than it holds: a count, offset or size that does not fit the file,
 * a type id that is unknown, a string that is not UTF-8. The message names the file (when there is one), the
 * thing read and the byte offset where it starts; {@link #offset()} gives the offset (-1 when the problem is not
 * at one place, e.g. two tensors overlapping).
 */
public final class GgufFormatException extends RlxException {
    private final long offset;

    public GgufFormatException(String message, long offset) {
        super(message);
        this.offset = offset;
    }

    public GgufFormatException(String message, long offset, Throwable cause) {
        super(message, cause);
        this.offset = offset;
    }

    /** Byte offset in the file of the field that was wrong, or -1. */
    public long offset() {
        return offset;
    }
}
