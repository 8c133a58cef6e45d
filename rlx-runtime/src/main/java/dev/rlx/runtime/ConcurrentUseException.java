package dev.rlx.runtime;

import dev.rlx.ir.RlxException;

/**
 * A compiled graph was used by a second thread while one was running it (a run, or setting an input or reading
 * an output during that run). One compiled graph runs on one thread at a time: give each thread its own
 * ({@link CompiledGraph#copy()}). The run in progress is not disturbed; the refused call changed nothing.
 */
public final class ConcurrentUseException extends RlxException {
    public ConcurrentUseException(String message) {
        super(message);
    }
}
