package dev.rlx.testkit;

import dev.rlx.ir.Graph;
import dev.rlx.opt.CompilePipeline;
import dev.rlx.opt.PrecisionPolicy;
import dev.rlx.testkit.cases.OpCatalog;
import dev.rlx.testkit.reference.ReferenceInterpreter;
import java.util.List;

/**
 * The suite through the same harness with the reference as the runner, on each case's graph after the standard
 * optimising passes (constant folding by the reference itself): the fusion products, folded constants and
 * transposes, merged repeats and simplified ops must compute what the ops they replace compute. Only the cases
 * the passes rewrite run; on the others the reference would be compared with itself.
 */
class OptimisedGraphSuiteTest extends ConformanceSuite {
    private final ReferenceInterpreter reference = new ReferenceInterpreter();
    private final CompilePipeline pipeline =
            CompilePipeline.standard(PrecisionPolicy.F32, true, dev.rlx.opt.Capabilities.all(), reference);

    @Override
    protected GraphRunner runner() {
        return (g, data) -> reference.run(pipeline.run(g), data);
    }

    @Override
    protected ReferenceInterpreter reference() {
        return reference;
    }

    @Override
    protected List<OpFamily> families() {
        return OpCatalog.families().stream()
                .map(f -> new OpFamily(f.name(), f.cases().stream().filter(this::rewritten).toList()))
                .filter(f -> !f.cases().isEmpty())
                .toList();
    }

    private boolean rewritten(OpCase c) {
        Graph g = c.buildGraph();
        return !pipeline.run(g).fingerprint().equals(g.fingerprint());
    }
}
