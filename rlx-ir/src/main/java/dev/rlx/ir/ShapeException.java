package dev.rlx.ir;

/**
 * A builder or shape rule rejected its operands. The message has the form
 * {@code [op] what is wrong: operands and the rule broken}.
 */
public final class ShapeException extends RlxException {
    public ShapeException(String message) {
        super(message);
    }
}
