package dev.rlx.testkit;

import dev.rlx.ir.OpKind;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.Session;
import dev.rlx.testkit.reference.ReferenceBackend;

/**
 * The whole suite on the reference backend claiming only the primitive ops, through the runtime like any
 * backend: every composite and fusion product arrives decomposed, weights come from weight sets, constants are
 * folded by the reference, bodies arrive planned. Compared with the interpreter's own definitions of the
 * composites, this checks every decomposition in double precision (and the SPI plumbing on the way).
 */
class PrimitiveReferenceTestkitTest extends BackendTestkit {
    @Override
    protected Session session() {
        return new Session(ReferenceBackend.primitivesOnly(), CompileOptions.defaults(), null);
    }

    @Override
    protected String skipReason(OpCase c) {
        if (c.kinds().contains(OpKind.PAGED_ATTENTION)) {
            return "paged attention has no decomposition: a backend runs it natively or not at all";
        }
        return c.kinds().contains(OpKind.QUANT_MATMUL)
                ? "quantised matmul has no decomposition (no dequantise primitive): a backend runs it natively or not at all"
                : null;
    }
}
