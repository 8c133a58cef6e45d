package dev.rlx.testkit.reference;

import dev.rlx.ir.Node;
import dev.rlx.ir.RlxException;

/**
 * The reference interpreter could not run a graph: missing or mis-shaped data, an index out of range, a loop
 * past its guard, a custom op without a CPU kernel, or an operation the IR leaves undefined (ordering complex
 * values). The message names the node or the data slot.
 */
public final class ReferenceException extends RlxException {
    public ReferenceException(String message) {
        super(message);
    }

    public ReferenceException(String message, Throwable cause) {
        super(message, cause);
    }

    /** {@code [label] %id label 'name': detail}, the form every node error takes. */
    static ReferenceException at(Node n, String detail) {
        return new ReferenceException("[" + n.op().label() + "] " + n.describe() + ": " + detail);
    }
}
