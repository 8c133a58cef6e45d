package dev.rlx.cpu;

import dev.rlx.testkit.Close;
import dev.rlx.testkit.reference.Ref;
import dev.rlx.cpu.testing.Runner;
import dev.rlx.cpu.testing.SmallCnn;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@link SmallCnn} end to end on the CPU backend against its float64 reference. */
class SmallCnnTest {
    /**
     * Every stage is continuous (relu and max included), so f32 rounding only accumulates: each of the ~5
     * stages adds about 1e-7 relative on values of size ~1 and the final dot product sums 256 terms; the
     * observed worst error is 1.2e-7 on logits of size ~1.
     */
    private static final double ATOL = 1e-5;
    private static final double RTOL = 1e-5;

    @Test
    void smallCnn_logitsAndProbabilitiesMatchFloat64Reference() {
        Map<String, Ref> data = SmallCnn.data(2024);
        List<double[]> outs = Runner.run(SmallCnn.build(), data);
        Ref[] expected = SmallCnn.reference(data);
        Close.assertClose(expected[0].data(), outs.get(0), ATOL, RTOL, "small cnn logits");
        Close.assertClose(expected[1].data(), outs.get(1), ATOL, RTOL, "small cnn probabilities");
    }
}
