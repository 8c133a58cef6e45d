package dev.rlx.testkit;

import dev.rlx.testkit.cases.OpCatalog;
import dev.rlx.testkit.reference.ReferenceInterpreter;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

/**
 * The harness: every case of the {@link OpCatalog}, one dynamic test each grouped by op family, run by a
 * {@link GraphRunner} and compared with a {@link ReferenceInterpreter} ({@link CaseCheck}). Backends extend
 * {@link BackendTestkit}, which supplies the runner from a session; other runners (the reference on optimised
 * graphs, in this module's tests) extend this class directly.
 *
 * <p>A case {@link #skipReason} names is reported as skipped with that reason (an aborted assumption), never
 * as a silent pass.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ConformanceSuite {
    /** What runs the cases; asked once, when the test factory runs. */
    protected abstract GraphRunner runner();

    /** The reference the outputs are compared with; asked once, when the test factory runs. */
    protected abstract ReferenceInterpreter reference();

    /** Why this runner does not run {@code c}, or null to run it. */
    protected String skipReason(OpCase c) {
        return null;
    }

    /** The families to run; every family of the catalog unless a subclass narrows them. */
    protected List<OpFamily> families() {
        return OpCatalog.families();
    }

    @TestFactory
    final Stream<DynamicNode> opCases() {
        GraphRunner runner = runner();
        ReferenceInterpreter reference = reference();
        return families().stream().map(f -> DynamicContainer.dynamicContainer(f.name(),
                f.cases().stream().map(c -> DynamicTest.dynamicTest(c.name(), () -> {
                    String skip = skipReason(c);
                    Assumptions.assumeTrue(skip == null, () -> "case " + c.name() + " skipped: " + skip);
                    CaseCheck.verify(c, runner, reference);
                }))));
    }
}
