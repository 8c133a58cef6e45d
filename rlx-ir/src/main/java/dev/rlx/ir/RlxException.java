package dev.rlx.ir;

/**
 * Root of every error RLX throws. Unchecked: a failed call leaves the object it was called on as it was.
 *
 * <p>Subtypes name what went wrong (a shape rule, an unsupported op, an unknown input...) and their
 * messages name the thing (op, node, input name, expected versus actual).
 */
public class RlxException extends RuntimeException {
    public RlxException(String message) {
        super(message);
    }

    public RlxException(String message, Throwable cause) {
        super(message, cause);
    }
}
