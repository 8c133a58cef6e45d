package dev.rlx.testkit;

import dev.rlx.ir.Tensor;
import dev.rlx.testkit.reference.ReferenceInterpreter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.opentest4j.AssertionFailedError;

/**
 * Runs one case on a {@link GraphRunner} and on the {@link ReferenceInterpreter}, and fails naming the case,
 * the output, the index and both values when any output is out of tolerance.
 */
public final class CaseCheck {
    private CaseCheck() {}

    /**
     * @throws AssertionFailedError when an output differs from the reference beyond its tolerance, or the
     *                              runner returns the wrong number of outputs
     */
    public static void verify(OpCase c, GraphRunner actual, ReferenceInterpreter reference) {
        OpCase.Instance in = c.instantiate();
        List<Tensor> expected;
        try {
            expected = reference.run(in.graph(), in.data());
        } catch (RuntimeException e) {
            throw new AssertionFailedError("case " + c.name() + ": the reference could not run it: " + e.getMessage(), e);
        }
        List<Tensor> got = actual.run(in.graph(), in.data());
        if (got.size() != expected.size()) {
            throw new AssertionFailedError("case " + c.name() + ": expected " + expected.size() + " outputs but got "
                    + got.size());
        }
        List<String> failures = new ArrayList<>();
        for (int i = 0; i < expected.size(); i++) {
            Tensor e = expected.get(i);
            Optional<String> f = OutputComparison.compare(e, got.get(i), c.tolerance(i, e.dtype()));
            int index = i;
            f.ifPresent(msg -> failures.add("output " + index + " " + e.shape() + ": " + msg));
        }
        if (!failures.isEmpty()) {
            throw new AssertionFailedError("case " + c.name() + ": " + String.join("; ", failures));
        }
    }
}
