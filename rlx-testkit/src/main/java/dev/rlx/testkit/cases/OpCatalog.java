package dev.rlx.testkit.cases;

import dev.rlx.testkit.OpFamily;
import java.util.List;

/**
 * Every conformance case, by op family. Together they cover each {@code Op} record in every dtype it takes:
 * odd sizes (1, primes, not a multiple of any vector length), sizes that take a backend's parallel and blocked
 * paths, NumPy broadcasting, transposed and sliced operands fed through transpose and slice nodes, edge values
 * (NaN and infinities where the op defines them, fully masked rows, empty dims).
 */
public final class OpCatalog {
    private OpCatalog() {}

    public static List<OpFamily> families() {
        return List.of(ElementwiseCases.family(), MatMulCases.family(), ReduceCases.family(), AxisCases.family(),
                NormCases.family(), MovementCases.family(), IndexCases.family(), AttentionCases.family(),
                ConvCases.family(), PoolCases.family(), FftCases.family(), ControlFlowCases.family(),
                FusedCases.family(), PatternCases.family(), RngCases.family(), CustomCases.family(),
                PagedAttentionCases.family(), QuantMatMulCases.family());
    }
}
