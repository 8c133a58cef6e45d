package dev.rlx.opt.decompose;

import dev.rlx.ir.Graph;
import dev.rlx.opt.Capabilities;
import dev.rlx.opt.Pass;

/** Placeholder until the decompositions land: leaves every node as it is. */
public final class Decompose implements Pass {
    private final Capabilities target;

    public Decompose(Capabilities target) {
        this.target = target;
    }

    @Override
    public String name() {
        return "decompose";
    }

    @Override
    public Graph apply(Graph g) {
        return g;
    }
}
