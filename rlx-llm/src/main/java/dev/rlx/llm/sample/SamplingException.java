package dev.rlx.llm.sample;

import dev.rlx.ir.RlxException;

/**
 * A sampler refused its input: logits that are null, empty, NaN or infinite where a distribution is needed, a
 * parameter out of range, or a chain that selects no token. {@link #argument()} names the argument and
 * {@link #index()} the entry of it at fault (-1 when the whole argument is). The sampler's state is unchanged.
 */
public final class SamplingException extends RlxException {
    private final String argument;
    private final int index;

    public SamplingException(String argument, int index, String message) {
        super(message);
        this.argument = argument;
        this.index = index;
    }

    /** The argument at fault: {@code "logits"}, or a parameter's name. */
    public String argument() {
        return argument;
    }

    /** The index within {@link #argument()} at fault (a logit's token id), or -1. */
    public int index() {
        return index;
    }
}
