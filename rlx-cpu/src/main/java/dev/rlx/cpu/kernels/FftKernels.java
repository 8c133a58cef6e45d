package dev.rlx.cpu.kernels;

import dev.rlx.ir.DType;
import dev.rlx.ir.FftKind;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import java.util.Arrays;

/**
 * Kernels for {@link Op.Fft}: f32 and c64 transforms take the vector FFT ({@link VectorFftLine}) when their
 * complex length is a power of two of at least W*W (W float lanes) or any other length whose Bluestein
 * convolution is ({@link BluesteinFftF32}); short lines, and all f64, take the double-precision mixed-radix /
 * Bluestein path ({@link ScalarFftLine}). Plans (twiddles, chirps) and
 * per-part workspaces are built here, once.
 */
public final class FftKernels {
    private FftKernels() {}

    /** Transform work (about {@code n log2 n}) a parallel part should cover at least. */
    private static final long GRAIN_WORK = 64 * 1024;

    public static Kernel fft(Node n, LowerContext ctx) {
        Op.Fft op = (Op.Fft) n.op();
        Buf x = ctx.in(n, 0);
        Buf y = ctx.out(n, 0);
        boolean complexIn = op.op() != FftKind.R2C;
        boolean complexOut = op.op() != FftKind.C2R;
        int rank = Op.Fft.signalRank(op.op(), x.shape());
        int[] dims = Arrays.copyOf(x.shape().dims(), rank);
        AxisLines lines = AxisLines.of(dims, op.axis(), scalarStrides(x.shape(), complexIn, rank),
                scalarStrides(y.shape(), complexOut, rank));
        if (lines.count() == 0) {
            return Kernels.NONE;
        }
        long work = (long) op.n() * (64 - Long.numberOfLeadingZeros(op.n()));
        int parts = (int) Math.max(1, Math.min(Math.min(ctx.parallel().threads(), lines.count()),
                work * lines.count() / GRAIN_WORK));
        double scale = op.norm().scale(op.op().inverse(), op.n());
        boolean f64 = x.dtype() == DType.F64;
        FftLine line = !f64 && VectorFftLine.supports(op.op(), op.n())
                ? new VectorFftLine(op.op(), op.n(), scale, parts, ctx)
                : new ScalarFftLine(op.op(), op.n(), f64, scale, parts);
        return new FftKernel(x.seg(), y.seg(), lines, line, parts, ctx.parallel());
    }

    /**
     * Strides of the {@code rank} signal dims counted in scalars: a C64 element is two f32 scalars; (re, im)
     * pairs already count scalars, and so do real tensors.
     */
    private static long[] scalarStrides(Shape s, boolean complex, int rank) {
        long[] strides = Arrays.copyOf(s.strides(), rank);
        if (complex && s.dtype() == DType.C64) {
            for (int d = 0; d < rank; d++) {
                strides[d] *= 2;
            }
        }
        return strides;
    }
}
