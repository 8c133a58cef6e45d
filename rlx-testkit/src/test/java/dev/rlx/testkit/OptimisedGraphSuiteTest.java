package dev.rlx.testkit;

import dev.rlx.ir.Graph;
import dev.rlx.ir.OpKind;
import dev.rlx.opt.CompilePipeline;
import dev.rlx.opt.PrecisionPolicy;
import dev.rlx.testkit.reference.ReferenceInterpreter;
import java.util.EnumSet;

/**
 * The suite through the same harness with the reference as the runner, on each case's graph after the standard
 * optimising passes (constant folding by the reference itself): the fusion products, folded constants and
 * folded transposes must compute what the ops they replace compute. Cases the passes leave unchanged are
 * skipped, since the reference against itself checks nothing there.
 */
class OptimisedGraphSuiteTest extends ConformanceSuite {
    private final ReferenceInterpreter reference = new ReferenceInterpreter();
    private final CompilePipeline pipeline =
            CompilePipeline.standard(PrecisionPolicy.F32, true, EnumSet.allOf(OpKind.class), reference);

    @Override
    protected GraphRunner runner() {
        return (g, data) -> reference.run(pipeline.run(g), data);
    }

    @Override
    protected ReferenceInterpreter reference() {
        return reference;
    }

    @Override
    protected String skipReason(OpCase c) {
        Graph g = c.buildGraph();
        return pipeline.run(g).fingerprint().equals(g.fingerprint())
                ? "the optimising passes leave this graph unchanged" : null;
    }
}
