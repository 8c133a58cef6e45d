package dev.rlx.cpu;

import dev.rlx.ir.Op;
import dev.rlx.ir.quant.BlockFormat;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.testkit.Allocations;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The paged attention kernel allocates nothing per run (STYLE 12), validation, planning, padding and spilled blocks
 * included: measured with {@code ThreadMXBean} on the calling thread once the JIT has compiled the loops.
 */
@Tag("allocation") // runs in its own JVM: see the surefire configuration
class PagedAttentionAllocationTest {
    @ParameterizedTest
    @ValueSource(strings = {"F32", "Q4_0"})
    void run_allocatesNothing(String format) {
        // a decode, a prefill chunk across blocks and an idle slot, padding rows, some blocks spilled
        PagedKv kv = new PagedKv(Op.PagedAttention.of(4, 2, 32, 8, BlockFormat.valueOf(format)),
                new int[] {21, 40, 9}, new int[] {1, 12, 0}, 2, 3, 0.3, 1);
        try (Session s = new Session(Device.CPU, CompileOptions.defaults().withThreads(1));
             CompiledGraph cg = s.compile(kv.graph())) {
            kv.feed(cg);
            Allocations.assertSteadyStateAllocatesNothing(format + " run", cg::run, 100, 200, null);
        }
    }
}
