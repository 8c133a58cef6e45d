package dev.rlx.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rlx.ir.Op;
import dev.rlx.ir.quant.BlockFormat;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The paged attention kernel allocates nothing per run (STYLE 12), validation, planning, padding and spilled blocks
 * included: measured with {@code ThreadMXBean} on the calling thread once the JIT has compiled the loops.
 */
@Tag("allocation") // runs in its own JVM: see the surefire configuration
class PagedAttentionAllocationTest {
    /** Bytes allocated by 100 runs, window after window until one allocates nothing or 200 have passed. */
    private static long steadyStateAllocation(CompiledGraph cg) {
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        long allocated = -1;
        for (int window = 0; window < 200 && allocated != 0; window++) {
            long before = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < 100; i++) {
                cg.run();
            }
            allocated = mx.getThreadAllocatedBytes(tid) - before;
        }
        return allocated;
    }

    @ParameterizedTest
    @ValueSource(strings = {"F32", "Q4_0"})
    void run_allocatesNothing(String format) {
        // a decode, a prefill chunk across blocks and an idle slot, padding rows, some blocks spilled
        PagedKv kv = new PagedKv(Op.PagedAttention.of(4, 2, 32, 8, BlockFormat.valueOf(format)),
                new int[] {21, 40, 9}, new int[] {1, 12, 0}, 2, 3, 0.3, 1);
        try (Session s = new Session(Device.CPU, CompileOptions.defaults().withThreads(1));
             CompiledGraph cg = s.compile(kv.graph())) {
            kv.feed(cg);
            assertEquals(0, steadyStateAllocation(cg), format + ": bytes allocated by 100 runs once warm");
        }
    }
}
