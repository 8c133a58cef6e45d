package dev.rlx.cpu.kernels;

import dev.rlx.ir.Node;

/** Scaled dot-product attention (contiguous and over a paged KV pool) and rotary position embedding. */
public final class AttentionKernels {
    private AttentionKernels() {}

    /** See {@link AttentionKernel}. */
    public static Kernel attention(Node n, LowerContext ctx) {
        return AttentionKernel.of(n, ctx);
    }

    /** See {@link PagedAttentionKernel}. */
    public static Kernel pagedAttention(Node n, LowerContext ctx) {
        return PagedAttentionKernel.of(n, ctx);
    }

    /** See {@link RopeKernel}. */
    public static Kernel rope(Node n, LowerContext ctx) {
        return RopeKernel.of(n, ctx);
    }
}
