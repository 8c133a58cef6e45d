package dev.rlx.cpu;

import dev.rlx.ir.DType;
import dev.rlx.ir.OpKind;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.testkit.BackendTestkit;
import dev.rlx.testkit.OpCase;
import java.util.Set;

/**
 * The backend conformance suite on the CPU, on two threads so every case can take the parallel paths whatever
 * the machine. The CPU's own paths (kernel selection, thread counts, allocation, code generation) have their
 * own tests beside this one; what it skips, {@link UnsupportedDtypesTest} shows it rejects.
 */
class CpuTestkitTest extends BackendTestkit {
    @Override
    protected Session session() {
        return new Session(Device.CPU, CompileOptions.defaults().withThreads(2));
    }

    @Override
    protected String skipReason(OpCase c) {
        Set<OpKind> kinds = c.kinds();
        Set<DType> dtypes = c.dtypes();
        if (kinds.contains(OpKind.REDUCE) && dtypes.contains(DType.C64)) {
            return "the CPU computes reductions on real values only (it rejects complex ones at compile time)";
        }
        if ((kinds.contains(OpKind.FUSED) || kinds.contains(OpKind.FUSED_MATMUL)) && dtypes.contains(DType.F64)) {
            return "the CPU's fused kernels are f32 only (its fusion pass builds no other)";
        }
        return null;
    }
}
