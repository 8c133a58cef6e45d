package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rlx.ir.Elements;
import dev.rlx.ir.DType;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.ReduceKind;
import dev.rlx.ir.Shape;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Reductions over axes, arg-max/min, prefix sums and top-k ({@link TopKKernel}), for real floats (computed
 * in double) and integers (computed in long, so sums and products wrap to the type's width).
 *
 * <p>f32 with contiguous runs takes {@link RowsF32}: sums in float lanes per block, block sums in double;
 * max/min in float lanes (exact). f32 reductions that keep the last axis run vectors across outputs
 * ({@link ColumnReduceF32}). Everything else folds element by element in double or long. Work is split over
 * output elements (reduce, arg-max) or lines (cumsum).
 */
public final class ReduceKernels {
    private ReduceKernels() {}

    // ---------------------------------------------------------------- factories

    public static Kernel reduce(Node n, LowerContext ctx) {
        Op.Reduce op = (Op.Reduce) n.op();
        Buf x = ctx.in(n, 0);
        Buf y = ctx.out(n, 0);
        Unsupported.requireReal(n, x.dtype());
        Shape xs = x.shape();
        long[] strides = xs.strides();
        boolean[] reduced = new boolean[xs.rank()];
        for (int a : op.axes()) {
            reduced[a] = true;
        }
        List<Integer> keptDims = new ArrayList<>();
        List<Long> keptStrides = new ArrayList<>();
        List<Integer> redDims = new ArrayList<>();
        List<Long> redStrides = new ArrayList<>();
        for (int d = 0; d < xs.rank(); d++) {
            (reduced[d] ? redDims : keptDims).add(xs.dim(d));
            (reduced[d] ? redStrides : keptStrides).add(strides[d]);
        }
        // Output position o (row-major over the kept dims, with or without keepDims) starts at
        // outs.offset(0, o) in x; its reduced elements are the walk over the reduced dims from there.
        OffsetMap outs = OffsetMap.of(ints(keptDims), longs(keptStrides));
        Walk over = Walk.of(ints(redDims), longs(redStrides));
        int last = xs.rank() - 1;
        if (x.dtype() == DType.F32 && last >= 0 && !reduced[last] && ColumnReduceF32.applies(op.op(), xs.dim(last))) {
            return new ColumnReduceF32(op.op(), x, y, outs, over, xs.dim(last), ctx.parallel());
        }
        return new Reduce(op.op(), x, y, outs, over, ctx.parallel());
    }

    public static Kernel argReduce(Node n, LowerContext ctx) {
        Op.ArgReduce op = (Op.ArgReduce) n.op();
        Buf x = ctx.in(n, 0);
        Unsupported.requireReal(n, x.dtype());
        // Output element l is line l: both are row-major over the dims other than the axis.
        AxisLines lines = AxisLines.of(x.shape().dims(), op.axis(), x.shape().strides());
        return new ArgReduce(op.op() == Op.ArgReduce.Kind.ARGMAX, x, ctx.out(n, 0), lines, ctx.parallel());
    }

    public static Kernel cumsum(Node n, LowerContext ctx) {
        Op.Cumsum op = (Op.Cumsum) n.op();
        Buf x = ctx.in(n, 0);
        Unsupported.requireReal(n, x.dtype());
        AxisLines lines = AxisLines.of(x.shape().dims(), op.axis(), x.shape().strides());
        return new Cumsum(x, ctx.out(n, 0), lines, op.exclusive(), op.reverse(), ctx.parallel());
    }

    public static Kernel topK(Node n, LowerContext ctx) {
        return TopKKernel.of(n, ctx);
    }

    // ---------------------------------------------------------------- reduce

    /** One output element per unit: folds its reduced elements, run by run. */
    static final class Reduce implements Kernel, RangeTask {
        private final ReduceKind kind;
        private final MemorySegment x;
        private final MemorySegment y;
        private final DType t;
        private final OffsetMap outs;
        private final Walk over;     // reduced elements: over.rows() runs of over.inner(), stride over.innerStride(0)
        private final long count;    // reduced elements per output
        private final boolean vector; // f32 runs of stride 1 and a kind RowsF32 has
        private final Parallel parallel;

        Reduce(ReduceKind kind, Buf x, Buf y, OffsetMap outs, Walk over, Parallel parallel) {
            this.kind = kind;
            this.x = x.seg();
            this.y = y.seg();
            this.t = x.dtype();
            this.outs = outs;
            this.over = over;
            this.count = over.elements();
            this.vector = t == DType.F32 && over.innerStride(0) == 1 && kind != ReduceKind.PROD;
            this.parallel = parallel;
        }

        @Override
        public void run() {
            parallel.parallelFor(outs.size(), Grain.of(count), this);
        }

        @Override
        public void range(int from, int to) {
            for (int o = from; o < to; o++) {
                long base = outs.offset(0, o);
                if (vector) {
                    y.setAtIndex(JAVA_FLOAT, o, (float) mean(foldF32(base)));
                } else if (Elements.integral(t)) {
                    Elements.setLong(y, o, t, foldLong(base));
                } else {
                    Elements.setDouble(y, o, t, mean(foldDouble(base)));
                }
            }
        }

        private double foldF32(long base) {
            double acc = identity(kind);
            int len = over.inner();
            for (int r = 0; r < over.rows(); r++) {
                long off = base + over.rowOffset(0, r);
                acc = switch (kind) {
                    case SUM, MEAN -> acc + RowsF32.sum(x, off, len);
                    case MAX -> Math.max(acc, RowsF32.extreme(x, off, len, true));
                    case MIN -> Math.min(acc, RowsF32.extreme(x, off, len, false));
                    case PROD -> throw new IllegalStateException("prod has no f32 row loop");
                };
            }
            return acc;
        }

        /** MEAN divides the sum by the count (0/0 = NaN over zero elements); other kinds are done. */
        private double mean(double acc) {
            return kind == ReduceKind.MEAN ? acc / count : acc;
        }

        private double foldDouble(long base) {
            double acc = identity(kind);
            int len = over.inner();
            long s = over.innerStride(0);
            for (int r = 0; r < over.rows(); r++) {
                long off = base + over.rowOffset(0, r);
                for (int j = 0; j < len; j++) {
                    acc = combine(kind, acc, Elements.getDouble(x, off + j * s, t));
                }
            }
            return acc;
        }

        private long foldLong(long base) {
            long acc = identity(kind, t);
            int len = over.inner();
            long s = over.innerStride(0);
            for (int r = 0; r < over.rows(); r++) {
                long off = base + over.rowOffset(0, r);
                for (int j = 0; j < len; j++) {
                    acc = combine(kind, acc, Elements.getLong(x, off + j * s, t));
                }
            }
            return acc;
        }
    }

    /** The float result over zero elements: 0 for SUM and MEAN (MEAN then divides by 0), 1, -inf, +inf. */
    static double identity(ReduceKind k) {
        return switch (k) {
            case SUM, MEAN -> 0;
            case PROD -> 1;
            case MAX -> Double.NEGATIVE_INFINITY;
            case MIN -> Double.POSITIVE_INFINITY;
        };
    }

    /** The integer result over zero elements: 0, 1, or the smallest (MAX) or largest (MIN) value of {@code t}. */
    static long identity(ReduceKind k, DType t) {
        return switch (k) {
            case SUM, MEAN -> 0;
            case PROD -> 1;
            case MAX -> t.isUnsigned() ? 0 : -(1L << (8 * t.byteSize() - 1));
            case MIN -> t.isUnsigned() ? (1L << (8 * t.byteSize())) - 1 : (1L << (8 * t.byteSize() - 1)) - 1;
        };
    }

    static double combine(ReduceKind k, double acc, double v) {
        return switch (k) {
            case SUM, MEAN -> acc + v;
            case PROD -> acc * v;
            case MAX -> Math.max(acc, v); // NaN propagates
            case MIN -> Math.min(acc, v);
        };
    }

    static long combine(ReduceKind k, long acc, long v) {
        return switch (k) {
            case SUM, MEAN -> acc + v; // MEAN is float-only; wraps like the sum it would be
            case PROD -> acc * v;
            case MAX -> Math.max(acc, v);
            case MIN -> Math.min(acc, v);
        };
    }

    // ---------------------------------------------------------------- arg-max / arg-min

    /** One line per unit; writes the I64 index of its first extreme (NaN counting as the extreme). */
    static final class ArgReduce extends AxisLineKernel {
        private final boolean largest;
        private final MemorySegment x;
        private final MemorySegment y;
        private final DType t;
        private final boolean vector;

        ArgReduce(boolean largest, Buf x, Buf y, AxisLines lines, Parallel parallel) {
            super(lines, parallel);
            this.largest = largest;
            this.x = x.seg();
            this.y = y.seg();
            this.t = x.dtype();
            this.vector = t == DType.F32 && lines.step(0) == 1;
        }

        @Override
        public void range(int from, int to) {
            int n = lines.length();
            long step = lines.step(0);
            for (int l = from; l < to; l++) {
                long start = lines.start(0, l);
                int at;
                if (vector) {
                    // the extreme first (exact in f32), then where it first occurs: both passes vectorise
                    at = RowsF32.indexOf(x, start, n, RowsF32.extreme(x, start, n, largest));
                } else if (Elements.integral(t)) {
                    at = argLong(start, n, step);
                } else {
                    at = argDouble(start, n, step);
                }
                y.setAtIndex(JAVA_LONG, l, at);
            }
        }

        /** Arg-max of {@code sign * x}: negating turns arg-min into arg-max exactly, NaN staying NaN. */
        private int argDouble(long start, int n, long step) {
            double sign = largest ? 1 : -1;
            double best = sign * Elements.getDouble(x, start, t);
            int at = 0;
            for (int j = 1; j < n && !Double.isNaN(best); j++) {
                double v = sign * Elements.getDouble(x, start + j * step, t);
                if (v > best || Double.isNaN(v)) {
                    best = v;
                    at = j;
                }
            }
            return at;
        }

        /** Arg-max of {@code x ^ flip}: with flip = -1 that is {@code ~x}, which reverses the order without overflow. */
        private int argLong(long start, int n, long step) {
            long flip = largest ? 0 : -1;
            long best = Elements.getLong(x, start, t) ^ flip;
            int at = 0;
            for (int j = 1; j < n; j++) {
                long v = Elements.getLong(x, start + j * step, t) ^ flip;
                if (v > best) {
                    best = v;
                    at = j;
                }
            }
            return at;
        }
    }

    // ---------------------------------------------------------------- cumsum

    /** One line per unit: a running sum in double (floats) or long (integers, wrapping). */
    static final class Cumsum extends AxisLineKernel {
        private final MemorySegment x;
        private final MemorySegment y;
        private final DType t;
        private final boolean exclusive;
        private final boolean reverse;

        Cumsum(Buf x, Buf y, AxisLines lines, boolean exclusive, boolean reverse, Parallel parallel) {
            super(lines, parallel);
            this.x = x.seg();
            this.y = y.seg();
            this.t = x.dtype();
            this.exclusive = exclusive;
            this.reverse = reverse;
        }

        @Override
        public void range(int from, int to) {
            int n = lines.length();
            // x and y share a layout; a reverse sum walks the line from its end
            long step = reverse ? -lines.step(0) : lines.step(0);
            long first = reverse ? (n - 1) * lines.step(0) : 0;
            boolean integral = Elements.integral(t);
            for (int l = from; l < to; l++) {
                long start = lines.start(0, l) + first;
                if (integral) {
                    long acc = 0;
                    for (int j = 0; j < n; j++) {
                        long i = start + j * step;
                        long before = acc;
                        acc += Elements.getLong(x, i, t);
                        Elements.setLong(y, i, t, exclusive ? before : acc);
                    }
                } else {
                    double acc = 0;
                    for (int j = 0; j < n; j++) {
                        long i = start + j * step;
                        double before = acc;
                        acc += Elements.getDouble(x, i, t);
                        Elements.setDouble(y, i, t, exclusive ? before : acc);
                    }
                }
            }
        }
    }

    // ---------------------------------------------------------------- helpers

    private static int[] ints(List<Integer> v) {
        int[] a = new int[v.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = v.get(i);
        }
        return a;
    }

    private static long[] longs(List<Long> v) {
        long[] a = new long[v.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = v.get(i);
        }
        return a;
    }
}
