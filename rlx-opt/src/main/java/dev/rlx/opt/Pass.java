package dev.rlx.opt;

import dev.rlx.ir.Graph;

/**
 * A named, pure graph-to-graph rewrite. Passes never modify their input; they return it unchanged when there
 * is nothing to do.
 */
public interface Pass {
    /** Short name used in logs and dumps, e.g. {@code dce}. */
    String name();

    Graph apply(Graph g);
}
