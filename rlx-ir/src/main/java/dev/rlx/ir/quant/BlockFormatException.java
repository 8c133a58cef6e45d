package dev.rlx.ir.quant;

import dev.rlx.ir.RlxException;

/**
 * A {@link BlockFormat} call with a value count that is not a whole number of blocks, or an array or byte range
 * outside what was given. The message names the format and the numbers; nothing was read or written.
 */
public final class BlockFormatException extends RlxException {
    public BlockFormatException(String message) {
        super(message);
    }
}
