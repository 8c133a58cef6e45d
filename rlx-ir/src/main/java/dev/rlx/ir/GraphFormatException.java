package dev.rlx.ir;

/**
 * Serialized graph bytes are malformed: truncated, out of range, or inconsistent. The message gives the
 * byte offset where reading failed.
 */
public final class GraphFormatException extends RlxException {
    private final long offset;

    public GraphFormatException(long offset, String message) {
        super("malformed graph bytes at offset " + offset + ": " + message);
        this.offset = offset;
    }

    public GraphFormatException(long offset, String message, Throwable cause) {
        super("malformed graph bytes at offset " + offset + ": " + message, cause);
        this.offset = offset;
    }

    /** Byte offset in the input where the problem was found. */
    public long offset() {
        return offset;
    }
}
