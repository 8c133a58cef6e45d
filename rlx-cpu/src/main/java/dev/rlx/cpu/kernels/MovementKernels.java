package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Transpose, slice, concat, expand and (non-view) reshape: all are strided copies, so one kernel does them,
 * given the source strides that express the op. Any dtype (elements are copied as 1, 2, 4 or 8 bytes).
 */
public final class MovementKernels {
    private MovementKernels() {}

    public static Kernel reshape(Node n, LowerContext ctx) {
        Buf x = ctx.in(n, 0);
        Buf y = ctx.out(n, 0);
        return copy(y, x, y.shape().dims(), Walk.contiguous(y.shape()), 0, Walk.contiguous(y.shape()), 0, ctx);
    }

    public static Kernel transpose(Node n, LowerContext ctx) {
        List<Integer> perm = ((Op.Transpose) n.op()).perm();
        Buf x = ctx.in(n, 0);
        Buf y = ctx.out(n, 0);
        long[] xs = x.shape().strides();
        long[] src = new long[perm.size()];
        for (int i = 0; i < src.length; i++) {
            src[i] = xs[perm.get(i)];
        }
        return copy(y, x, y.shape().dims(), Walk.contiguous(y.shape()), 0, src, 0, ctx);
    }

    public static Kernel slice(Node n, LowerContext ctx) {
        Op.Slice s = (Op.Slice) n.op();
        Buf x = ctx.in(n, 0);
        Buf y = ctx.out(n, 0);
        long[] src = x.shape().strides();
        long base = s.start() * src[s.axis()];
        src[s.axis()] *= s.step();
        return copy(y, x, y.shape().dims(), Walk.contiguous(y.shape()), 0, src, base, ctx);
    }

    public static Kernel expand(Node n, LowerContext ctx) {
        Buf x = ctx.in(n, 0);
        Buf y = ctx.out(n, 0);
        int[] d = y.shape().dims();
        return copy(y, x, d, Walk.contiguous(y.shape()), 0, Walk.broadcast(x.shape(), d), 0, ctx);
    }

    public static Kernel concat(Node n, LowerContext ctx) {
        int axis = ((Op.Concat) n.op()).axis();
        Buf y = ctx.out(n, 0);
        long[] ys = y.shape().strides();
        List<Kernel> parts = new ArrayList<>();
        long at = 0;
        for (int i = 0; i < n.inputs().size(); i++) {
            Buf x = ctx.in(n, i);
            Shape xs = x.shape();
            if (xs.elementCount() > 0) {
                parts.add(copy(y, x, xs.dims(), ys, at * ys[axis], xs.strides(), 0, ctx));
            }
            at += xs.dim(axis);
        }
        return Kernels.sequence(parts);
    }

    /** Copies the {@code dims}-shaped walk from {@code src} (strides, base) to {@code dst} (strides, base). */
    static Kernel copy(Buf dst, Buf src, int[] dims, long[] dstStrides, long dstBase, long[] srcStrides, long srcBase,
                       LowerContext ctx) {
        Walk w = Walk.of(dims, new long[][] {dstStrides, srcStrides}, new long[] {dstBase, srcBase});
        return new StridedCopy(dst.seg(), src.seg(), dst.dtype().byteSize(), w, ctx.parallel());
    }

    /** Element copy along a walk; a row that is contiguous on both sides is one bulk copy. */
    static final class StridedCopy implements Kernel, RangeTask {
        private final MemorySegment dst;
        private final MemorySegment src;
        private final int es;
        private final Walk w;
        private final Parallel parallel;

        StridedCopy(MemorySegment dst, MemorySegment src, int es, Walk w, Parallel parallel) {
            this.dst = dst;
            this.src = src;
            this.es = es;
            this.w = w;
            this.parallel = parallel;
        }

        @Override
        public void run() {
            if (w.elements() > 0) {
                parallel.parallelFor(w.rows(), Math.max(1, 65_536 / Math.max(1, w.inner())), this);
            }
        }

        @Override
        public void range(int from, int to) {
            long ds = w.innerStride(0);
            long ss = w.innerStride(1);
            int len = w.inner();
            for (int r = from; r < to; r++) {
                long d = w.rowOffset(0, r);
                long s = w.rowOffset(1, r);
                if (ds == 1 && ss == 1) {
                    MemorySegment.copy(src, s * es, dst, d * es, (long) len * es);
                    continue;
                }
                switch (es) {
                    case 1 -> { for (int j = 0; j < len; j++) dst.set(JAVA_BYTE, d + j * ds, src.get(JAVA_BYTE, s + j * ss)); }
                    case 2 -> { for (int j = 0; j < len; j++) dst.setAtIndex(JAVA_SHORT, d + j * ds, src.getAtIndex(JAVA_SHORT, s + j * ss)); }
                    case 4 -> { for (int j = 0; j < len; j++) dst.setAtIndex(JAVA_INT, d + j * ds, src.getAtIndex(JAVA_INT, s + j * ss)); }
                    default -> { for (int j = 0; j < len; j++) dst.setAtIndex(JAVA_LONG, d + j * ds, src.getAtIndex(JAVA_LONG, s + j * ss)); }
                }
            }
        }
    }
}
