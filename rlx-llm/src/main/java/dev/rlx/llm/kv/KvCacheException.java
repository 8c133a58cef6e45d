package dev.rlx.llm.kv;

import dev.rlx.ir.RlxException;
import java.util.Objects;

/**
 * A KV cache, block allocator, spill file or scheduler refused a call. The message names the thing involved
 * (sequence id, block id, layer, position, file and offset); {@link #reason()} says what kind of refusal it is,
 * so callers can react (for example shed load on {@link Reason#OUT_OF_BLOCKS}) without parsing text. A call
 * that throws leaves the cache as it was.
 */
public final class KvCacheException extends RlxException {
    /** What went wrong. */
    public enum Reason {
        /** Not enough free blocks for an append, an allocation or a copy-on-write. */
        OUT_OF_BLOCKS,
        /** A block id outside {@code [0, numBlocks)}. */
        BLOCK_OUT_OF_RANGE,
        /** A block released while already free. */
        DOUBLE_FREE,
        /** A sequence that was freed, belongs to another cache, or whose id is already taken. */
        BAD_SEQUENCE,
        /** A position, length or layer outside what the sequence or cache holds. */
        OUT_OF_RANGE,
        /** A write into a block that another sequence shares (history written before a fork is read-only). */
        SHARED_BLOCK,
        /** An argument that can never be valid (a negative count, a too-short array, a bad geometry). */
        BAD_ARGUMENT,
        /** A request that could not fit in the cache even if it ran alone. */
        REQUEST_TOO_LARGE,
        /** A call made in the wrong state (for example scheduling twice without completing the step). */
        BAD_STATE,
        /** A spill file that should exist does not. */
        SPILL_MISSING,
        /** A spill file shorter than its header says it must be. */
        SPILL_TRUNCATED,
        /** A file that is not an RLX KV spill file, or one of an unsupported version. */
        SPILL_FOREIGN,
        /** A spill file written for a different cache geometry. */
        SPILL_MISMATCH,
        /** An I/O error on the spill file, or the file is locked by another cache. */
        SPILL_IO
    }

    private final Reason reason;

    public KvCacheException(Reason reason, String message) {
        super(message);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    public KvCacheException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    public Reason reason() {
        return reason;
    }
}
