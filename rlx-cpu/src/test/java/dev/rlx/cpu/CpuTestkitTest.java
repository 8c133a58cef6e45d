package dev.rlx.cpu;

import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.testkit.BackendTestkit;
import dev.rlx.testkit.OpCase;

/**
 * The backend conformance suite on the CPU, on two threads so every case can take the parallel paths whatever
 * the machine. The CPU's own paths (kernel selection, thread counts, allocation, code generation) have their
 * own tests beside this one.
 */
class CpuTestkitTest extends BackendTestkit {
    @Override
    protected Session session() {
        return new Session(Device.CPU, CompileOptions.defaults().withThreads(2));
    }

    @Override
    protected String skipReason(OpCase c) {
        if (c.name().startsWith("reduce_sum_c64")) {
            return "the CPU computes reductions on real values only (it rejects complex ones at compile time)";
        }
        if ((c.name().startsWith("fused_") || c.name().startsWith("fusedMatMul_")) && c.name().contains("_f64_")) {
            return "the CPU's fused kernels are f32 only (its fusion pass builds no other)";
        }
        return null;
    }
}
