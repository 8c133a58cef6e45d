package dev.rlx.spark;

import dev.rlx.ir.RlxException;

/**
 * A Spark job cannot run as asked: a column that is missing or of the wrong type, an option out of range, a model
 * whose inputs do not fit the columns. Thrown on the driver, before any task starts.
 */
public class RlxSparkException extends RlxException {
    public RlxSparkException(String message) {
        super(message);
    }

    public RlxSparkException(String message, Throwable cause) {
        super(message, cause);
    }
}
