package dev.rlx.cpu;

import dev.rlx.cpu.kernels.AttentionKernels;
import dev.rlx.cpu.kernels.ControlFlowKernels;
import dev.rlx.cpu.kernels.ConvKernels;
import dev.rlx.cpu.kernels.CustomKernels;
import dev.rlx.cpu.kernels.ElementwiseKernels;
import dev.rlx.cpu.kernels.FftKernels;
import dev.rlx.cpu.kernels.IndexKernels;
import dev.rlx.cpu.kernels.Kernel;
import dev.rlx.cpu.kernels.LowerContext;
import dev.rlx.cpu.kernels.MatMulKernel;
import dev.rlx.cpu.kernels.MovementKernels;
import dev.rlx.cpu.kernels.QuantMatMulKernel;
import dev.rlx.cpu.kernels.NormKernels;
import dev.rlx.cpu.kernels.ReduceKernels;
import dev.rlx.cpu.kernels.RngKernels;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;

/** Picks the kernel factory for each node: one exhaustive switch, so a new op fails to compile here. */
final class CpuLowering {
    private CpuLowering() {}

    /** The kernel for {@code n}, or null for nodes that need none (sources). */
    static Kernel lower(Node n, LowerContext ctx) {
        return switch (n.op()) {
            case Op.Input i -> null;
            case Op.Param p -> null;
            case Op.Constant c -> null;
            case Op.Unary u -> ElementwiseKernels.unary(n, ctx);
            case Op.Binary b -> ElementwiseKernels.binary(n, ctx);
            case Op.Compare c -> ElementwiseKernels.compare(n, ctx);
            case Op.Where w -> ElementwiseKernels.where(n, ctx);
            case Op.Cast c -> ElementwiseKernels.cast(n, ctx);
            case Op.MatMul m -> MatMulKernel.of(n, ctx);
            case Op.QuantMatMul q -> QuantMatMulKernel.of(n, ctx);
            case Op.Reduce r -> ReduceKernels.reduce(n, ctx);
            case Op.ArgReduce a -> ReduceKernels.argReduce(n, ctx);
            case Op.Cumsum c -> ReduceKernels.cumsum(n, ctx);
            case Op.TopK t -> ReduceKernels.topK(n, ctx);
            case Op.Softmax s -> NormKernels.softmax(n, ctx);
            case Op.LogSoftmax s -> NormKernels.logSoftmax(n, ctx);
            case Op.LayerNorm l -> NormKernels.layerNorm(n, ctx);
            case Op.RmsNorm r -> NormKernels.rmsNorm(n, ctx);
            case Op.GroupNorm g -> NormKernels.groupNorm(n, ctx);
            case Op.Reshape r -> MovementKernels.reshape(n, ctx);
            case Op.Transpose t -> MovementKernels.transpose(n, ctx);
            case Op.Slice s -> MovementKernels.slice(n, ctx);
            case Op.Concat c -> MovementKernels.concat(n, ctx);
            case Op.Expand e -> MovementKernels.expand(n, ctx);
            case Op.Gather g -> IndexKernels.gather(n, ctx);
            case Op.ScatterAdd s -> IndexKernels.scatterAdd(n, ctx);
            case Op.Attention a -> AttentionKernels.attention(n, ctx);
            case Op.PagedAttention a -> AttentionKernels.pagedAttention(n, ctx);
            case Op.Rope r -> AttentionKernels.rope(n, ctx);
            case Op.Conv c -> ConvKernels.conv(n, ctx);
            case Op.ConvTranspose c -> ConvKernels.convTranspose(n, ctx);
            case Op.Pool p -> ConvKernels.pool(n, ctx);
            case Op.Fft f -> FftKernels.fft(n, ctx);
            case Op.If i -> ControlFlowKernels.ifElse(n, ctx);
            case Op.While w -> ControlFlowKernels.whileLoop(n, ctx);
            case Op.Scan s -> ControlFlowKernels.scan(n, ctx);
            case Op.Fused f -> ElementwiseKernels.fused(n, ctx);
            case Op.FusedMatMul f -> MatMulKernel.fused(n, ctx);
            case Op.AddNorm a -> NormKernels.addNorm(n, ctx);
            case Op.Custom c -> CustomKernels.custom(n, ctx);
            case Op.RngNormal r -> RngKernels.of(n, ctx);
            case Op.RngUniform r -> RngKernels.of(n, ctx);
        };
    }
}
