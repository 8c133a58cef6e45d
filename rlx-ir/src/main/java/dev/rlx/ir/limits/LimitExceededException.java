package dev.rlx.ir.limits;

import dev.rlx.ir.RlxException;

/**
 * A request asked for more than a {@link Limits} bound allows (arena bytes, weight bytes, nodes, a header's
 * size...). Thrown before anything is allocated: the object the call was made on is unchanged.
 */
public final class LimitExceededException extends RlxException {
    private final Limits.Kind kind;
    private final String what;
    private final long asked;
    private final long limit;

    public LimitExceededException(Limits.Kind kind, String what, long asked, long limit) {
        this(kind, what, asked, limit, null);
    }

    private LimitExceededException(Limits.Kind kind, String what, long asked, long limit, Throwable cause) {
        super(what + " needs " + asked + " " + kind.unit() + ", over the limit of " + limit + " " + kind.unit()
                + " (" + kind.description() + "; raise it with -D" + kind.property() + " or " + kind.envVar()
                + ", or Limits.builder()." + kind.builderMethod() + "(...))", cause);
        this.kind = kind;
        this.what = what;
        this.asked = asked;
        this.limit = limit;
    }

    /**
     * The same exception with {@code context} (the node or file being read, say) in front of what asked,
     * for callers that know more than the code that checked.
     */
    public LimitExceededException within(String context) {
        return new LimitExceededException(kind, context + ": " + what, asked, limit, this);
    }

    /** What asked: the thing named in the message before "needs". */
    public String what() {
        return what;
    }

    /** Which limit was exceeded. */
    public Limits.Kind kind() {
        return kind;
    }

    /** The size the request asked for, in the limit's unit. */
    public long asked() {
        return asked;
    }

    /** The limit in force. */
    public long limit() {
        return limit;
    }
}
