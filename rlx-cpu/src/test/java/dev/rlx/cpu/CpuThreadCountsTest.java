package dev.rlx.cpu;

import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.testkit.CaseCheck;
import dev.rlx.testkit.GraphRunner;
import dev.rlx.testkit.OpCase;
import dev.rlx.testkit.OpFamily;
import dev.rlx.testkit.cases.OpCatalog;
import dev.rlx.testkit.reference.ReferenceInterpreter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Conformance cases whose CPU kernels split work by thread count, at counts other than the two CpuTestkitTest
 * uses: one thread (no split), and more threads than the machine has (chunks still own disjoint scratch).
 */
class CpuThreadCountsTest {

    @ParameterizedTest(name = "{0} on {1} threads")
    @CsvSource({
            "matmul_f32_130x384_384x517, 1",
            "attention_manyChunksUnevenRows_f32, 5",
            "attention_largeShapeRunsParallel_f32, 1",
            "fused_f32_40x4099_4099_40x1_scalar, 3",
    })
    void case_matchesTheReference(String name, int threads) {
        OpCase c = OpCatalog.families().stream().map(OpFamily::cases).flatMap(java.util.List::stream)
                .filter(x -> x.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no conformance case named " + name));
        try (Session s = new Session(Device.CPU, CompileOptions.defaults().withThreads(threads))) {
            CaseCheck.verify(c, GraphRunner.of(s), new ReferenceInterpreter());
        }
    }
}
