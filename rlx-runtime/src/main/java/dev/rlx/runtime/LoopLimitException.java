package dev.rlx.runtime;

import dev.rlx.ir.RlxException;

/**
 * A {@code While} loop reached its {@code maxIterations} guard with its condition still true. The run is
 * abandoned; the compiled graph stays usable (run it again with other inputs).
 */
public final class LoopLimitException extends RlxException {
    private final long limit;

    public LoopLimitException(String node, long limit) {
        super("while loop " + node + " still wants to iterate after its maxIterations guard of " + limit
                + " iterations; check the loop condition, or raise the guard (-1 disables it)");
        this.limit = limit;
    }

    public long limit() {
        return limit;
    }
}
