package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import dev.rlx.ir.Elements;
import dev.rlx.ir.DType;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import java.lang.foreign.MemorySegment;

/**
 * Gather and scatter-add with I32 or I64 index tensors. Negative indices count from the end; every index is
 * checked against the axis length before it addresses memory, and one outside {@code [-n, n)} throws
 * {@link IndexOutOfRangeException} from {@code run} (a silent wrong read would be worse than the throw).
 */
public final class IndexKernels {
    private IndexKernels() {}

    /**
     * {@code data} seen as {@code [outer, n, inner]} and the output as {@code [outer, count, inner]} for
     * {@code count} indices: each output row of {@code inner} elements is one byte copy, so any dtype works.
     */
    public static Kernel gather(Node n, LowerContext ctx) {
        int axis = ((Op.Gather) n.op()).axis();
        Buf data = ctx.in(n, 0);
        Buf idx = ctx.in(n, 1);
        Buf out = ctx.out(n, 0);
        if (out.size() == 0) {
            return Kernels.NONE;
        }
        Shape ds = data.shape();
        long units = ds.elementCount(0, axis) * idx.size();
        if (units > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(units + " gathered rows; more than 2^31-1 is not supported");
        }
        Checked indices = new Checked(n, "gather", idx, axis, ds);
        return new Gather(data, out, indices, (int) idx.size(), ds.elementCount(axis + 1, ds.rank()), (int) units,
                ctx.parallel());
    }

    /**
     * Copies {@code data} to the output, then adds each update along lines of the axis: updates on one line
     * are the only ones that can meet at an output element, so lines run in parallel and duplicates add up
     * in index order, deterministically.
     */
    public static Kernel scatterAdd(Node n, LowerContext ctx) {
        int axis = ((Op.ScatterAdd) n.op()).axis();
        Buf data = ctx.in(n, 0);
        Buf idx = ctx.in(n, 1);
        Buf upd = ctx.in(n, 2);
        Unsupported.requireReal(n, data.dtype());
        Checked indices = new Checked(n, "scatter_add", idx, axis, data.shape());
        // operand 0: indices and updates (same dims, contiguous); 1: the output, laid out as data
        AxisLines lines = AxisLines.of(idx.shape().dims(), axis, idx.shape().strides(), data.shape().strides());
        return new ScatterAdd(data, upd, ctx.out(n, 0), indices, lines, ctx.parallel());
    }

    // ---------------------------------------------------------------- index reading

    /** Reads an I32 or I64 index tensor, checking each value against the indexed axis before it is used. */
    static final class Checked {
        private final MemorySegment seg;
        private final boolean wide;
        private final int n;
        private final String node;
        private final String op;
        private final Shape shape;
        private final int axis;
        private final Shape data;

        Checked(Node node, String op, Buf indices, int axis, Shape data) {
            this.seg = indices.seg();
            this.wide = indices.dtype() == DType.I64;
            this.n = data.dim(axis);
            this.node = node.describe();
            this.op = op;
            this.shape = indices.shape();
            this.axis = axis;
            this.data = data;
        }

        /**
         * The index at row-major position {@code p}, made non-negative.
         *
         * @throws IndexOutOfRangeException when it is outside {@code [-n, n)}
         */
        long at(long p) {
            long v = wide ? seg.getAtIndex(JAVA_LONG, p) : seg.getAtIndex(JAVA_INT, p);
            if (v < -n || v >= n) {
                throw IndexOutOfRangeException.of(node, op, v, p, shape, axis, data);
            }
            return v < 0 ? v + n : v;
        }
    }

    // ---------------------------------------------------------------- gather

    /**
     * One output row of {@code inner} elements per unit. The indices are checked once per run into an int array
     * (not once per outer row), and rows of one element of 4 or 8 bytes (a gather along the last axis, as Resize
     * lowers to) are moved as single loads and stores: one {@code MemorySegment.copy} call per element cost ten
     * times the move.
     */
    static final class Gather implements Kernel, RangeTask {
        private final MemorySegment data;
        private final MemorySegment out;
        private final Checked indices;
        private final int[] resolved; // the indices of this run, checked and made non-negative
        private final int count; // indices
        private final int n;     // data's size along the axis
        private final long rowBytes;
        private final int units;
        private final Parallel parallel;

        Gather(Buf data, Buf out, Checked indices, int count, long inner, int units, Parallel parallel) {
            this.data = data.seg();
            this.out = out.seg();
            this.indices = indices;
            this.resolved = new int[count];
            this.count = count;
            this.n = indices.n;
            this.rowBytes = inner * data.dtype().byteSize();
            this.units = units;
            this.parallel = parallel;
        }

        @Override
        public void run() {
            for (int j = 0; j < count; j++) {
                resolved[j] = (int) indices.at(j);
            }
            parallel.parallelFor(units, Grain.of(Math.max(1, rowBytes / 4)), this);
        }

        @Override
        public void range(int from, int to) {
            // walked as (outer row o, index j) with a plain inner loop over j, not u / count per element: the
            // division cost more than the move (a 2x nearest upsampling along the last axis, 307k elements,
            // about 2x faster)
            for (int o = from / count; (long) o * count < to; o++) {
                long first = (long) o * count;
                int j0 = (int) Math.max(0, from - first);
                int j1 = (int) Math.min(count, to - first);
                long base = (long) o * n;
                if (rowBytes == 4) {
                    for (int j = j0; j < j1; j++) {
                        out.setAtIndex(JAVA_INT_UNALIGNED, first + j, data.getAtIndex(JAVA_INT_UNALIGNED, base + resolved[j]));
                    }
                } else if (rowBytes == 8) {
                    for (int j = j0; j < j1; j++) {
                        out.setAtIndex(JAVA_LONG_UNALIGNED, first + j, data.getAtIndex(JAVA_LONG_UNALIGNED, base + resolved[j]));
                    }
                } else {
                    for (int j = j0; j < j1; j++) {
                        MemorySegment.copy(data, (base + resolved[j]) * rowBytes, out, (first + j) * rowBytes, rowBytes);
                    }
                }
            }
        }
    }

    // ---------------------------------------------------------------- scatter-add

    /** One line along the axis per unit: f32 adds in float, other floats in double, integers in long (wrapping). */
    static final class ScatterAdd extends AxisLineKernel {
        private final MemorySegment data;
        private final MemorySegment upd;
        private final MemorySegment out;
        private final DType t;
        private final Checked indices;

        ScatterAdd(Buf data, Buf upd, Buf out, Checked indices, AxisLines lines, Parallel parallel) {
            super(lines, parallel);
            this.data = data.seg();
            this.upd = upd.seg();
            this.out = out.seg();
            this.t = data.dtype();
            this.indices = indices;
        }

        @Override
        public void run() {
            MemorySegment.copy(data, 0, out, 0, out.byteSize());
            super.run();
        }

        @Override
        public void range(int from, int to) {
            int m = lines.length();
            long step = lines.step(0);
            long outStep = lines.step(1);
            boolean integral = Elements.integral(t);
            for (int l = from; l < to; l++) {
                long is = lines.start(0, l);
                long os = lines.start(1, l);
                for (int j = 0; j < m; j++) {
                    long p = is + j * step; // position in indices and updates
                    long o = os + indices.at(p) * outStep;
                    if (t == DType.F32) {
                        out.setAtIndex(JAVA_FLOAT, o, out.getAtIndex(JAVA_FLOAT, o) + upd.getAtIndex(JAVA_FLOAT, p));
                    } else if (integral) {
                        Elements.setLong(out, o, t, Elements.getLong(out, o, t) + Elements.getLong(upd, p, t));
                    } else {
                        Elements.setDouble(out, o, t, Elements.getDouble(out, o, t) + Elements.getDouble(upd, p, t));
                    }
                }
            }
        }
    }
}
