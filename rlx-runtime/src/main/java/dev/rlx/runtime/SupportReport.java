package dev.rlx.runtime;

import java.util.List;
import java.util.Optional;

/**
 * Whether a backend can run a graph, answered before compiling it ({@link Session#check}): the nodes it cannot
 * run even after decomposition, each with where it is and why.
 *
 * @param backend     the backend's name
 * @param unsupported every node it cannot run (empty when it runs the whole graph)
 */
public record SupportReport(String backend, List<UnsupportedOpException.Offender> unsupported) {
    public SupportReport {
        unsupported = List.copyOf(unsupported);
    }

    public boolean supported() {
        return unsupported.isEmpty();
    }

    /** The first node it cannot run, in graph order (bodies after the node that holds them). */
    public Optional<UnsupportedOpException.Offender> firstUnsupported() {
        return unsupported.stream().findFirst();
    }

    @Override
    public String toString() {
        return supported() ? backend + " runs every node"
                : backend + " cannot run " + unsupported.size() + " node(s), first " + unsupported.get(0);
    }
}
