package dev.rlx.ir;

import java.util.List;

/** The verifier found one or more errors in a graph; {@link #errors()} lists each one. */
public final class GraphVerificationException extends RlxException {
    private final List<String> errors;

    public GraphVerificationException(String graphName, List<String> errors) {
        super("graph @" + graphName + " failed verification (" + errors.size() + " error"
                + (errors.size() == 1 ? "" : "s") + "):\n  " + String.join("\n  ", errors));
        this.errors = List.copyOf(errors);
    }

    public List<String> errors() {
        return errors;
    }
}
