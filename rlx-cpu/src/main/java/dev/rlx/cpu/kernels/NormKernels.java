package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.rlx.ir.Elements;
import dev.rlx.ir.DType;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import java.lang.foreign.MemorySegment;

/**
 * Softmax, log-softmax and the layer, RMS and group normalisations, on any float dtype.
 *
 * <p>Numerics: softmax subtracts the line max before {@code exp}; the norms take two passes over a row, the
 * mean and then the mean of squared deviations from it (RMS: deviations from 0), so no catastrophic
 * cancellation. f32 rows of stride 1 run on {@link RowsF32} (float lanes, block sums in double); strided
 * lines and other dtypes run in double through {@link Elements}. Work is split over lines or rows.
 */
public final class NormKernels {
    private NormKernels() {}

    // ---------------------------------------------------------------- factories

    public static Kernel softmax(Node n, LowerContext ctx) {
        return alongAxis(n, ctx, ((Op.Softmax) n.op()).axis(), false);
    }

    public static Kernel logSoftmax(Node n, LowerContext ctx) {
        return alongAxis(n, ctx, ((Op.LogSoftmax) n.op()).axis(), true);
    }

    private static Kernel alongAxis(Node n, LowerContext ctx, int axis, boolean log) {
        Buf x = ctx.in(n, 0);
        // x and y share dims and layout, so one set of line offsets serves both
        AxisLines lines = AxisLines.of(x.shape().dims(), axis, x.shape().strides());
        return new Softmax(log, x, ctx.out(n, 0), lines, ctx.parallel());
    }

    /** Layer norm over axes {@code [axis, rank)}: each row of the trailing dims is one group. */
    public static Kernel layerNorm(Node n, LowerContext ctx) {
        Op.LayerNorm op = (Op.LayerNorm) n.op();
        return trailing(n, ctx, op.axis(), op.eps(), true);
    }

    /** RMS norm over axes {@code [axis, rank)}. */
    public static Kernel rmsNorm(Node n, LowerContext ctx) {
        Op.RmsNorm op = (Op.RmsNorm) n.op();
        return trailing(n, ctx, op.axis(), op.eps(), false);
    }

    private static Kernel trailing(Node n, LowerContext ctx, int axis, float eps, boolean centered) {
        Buf x = ctx.in(n, 0);
        Shape s = x.shape();
        long rowLen = s.elementCount(axis, s.rank());
        Buf beta = n.inputs().size() > 2 ? ctx.in(n, 2) : null;
        return rows(x, ctx.out(n, 0), ctx.in(n, 1), beta, s.elementCount(0, axis), 1, rowLen, 1, true, centered, eps,
                ctx);
    }

    /**
     * Group norm of {@code x [N, C, ...]}: the C/G channels of a group are adjacent, so group g of batch b is
     * the contiguous row {@code b * G + g}, made of C/G channel segments that each take one gamma and beta.
     */
    public static Kernel groupNorm(Node n, LowerContext ctx) {
        Op.GroupNorm op = (Op.GroupNorm) n.op();
        Buf x = ctx.in(n, 0);
        Shape s = x.shape();
        int groups = op.numGroups();
        int segs = s.dim(1) / groups;
        long spatial = s.elementCount(2, s.rank());
        return rows(x, ctx.out(n, 0), ctx.in(n, 1), ctx.in(n, 2), (long) s.dim(0) * groups, groups, spatial, segs,
                false, true, op.eps(), ctx);
    }

    /**
     * Residual add then norm ({@link Op.AddNorm}), row by row: a row's sum is written to output 0 and
     * normalised from there into output 1 while it is still in cache.
     */
    public static Kernel addNorm(Node n, LowerContext ctx) {
        Op.AddNorm op = (Op.AddNorm) n.op();
        Buf x = ctx.in(n, 0);
        Buf sum = ctx.out(n, 0);
        Shape s = x.shape();
        Buf beta = n.inputs().size() > 3 ? ctx.in(n, 3) : null;
        Kernel norm = rows(sum, ctx.out(n, 1), ctx.in(n, 2), beta, s.elementCount(0, op.axis()), 1,
                s.elementCount(op.axis(), s.rank()), 1, true, !op.rms(), op.eps(), ctx);
        if (norm == Kernels.NONE) {
            return norm;
        }
        return new AddNormRows(x, ctx.in(n, 1), sum, (NormRows) norm, ctx.parallel());
    }

    /** {@code sum = x + residual} for one row, then that row's norm. */
    static final class AddNormRows implements Kernel, RangeTask {
        private final MemorySegment x;
        private final MemorySegment residual;
        private final MemorySegment sum;
        private final DType t;
        private final NormRows norm;
        private final Parallel parallel;

        AddNormRows(Buf x, Buf residual, Buf sum, NormRows norm, Parallel parallel) {
            this.x = x.seg();
            this.residual = residual.seg();
            this.sum = sum.seg();
            this.t = x.dtype();
            this.norm = norm;
            this.parallel = parallel;
        }

        @Override
        public void run() {
            parallel.parallelFor(norm.rows, Grain.of(norm.rowLen), this);
        }

        @Override
        public void range(int from, int to) {
            int len = norm.rowLen;
            for (int r = from; r < to; r++) {
                long off = (long) r * len;
                if (t == DType.F32) {
                    ElementwiseKernels.binaryF32(dev.rlx.ir.BinaryKind.ADD, x, off, 1, residual, off, 1, sum, off, len);
                } else {
                    for (int j = 0; j < len; j++) {
                        Elements.setDouble(sum, off + j, t, Elements.getDouble(x, off + j, t) + Elements.getDouble(residual, off + j, t));
                    }
                }
                norm.row(r);
            }
        }
    }

    private static Kernel rows(Buf x, Buf y, Buf gamma, Buf beta, long rows, int groups, long segLen, int segs,
                               boolean perElement, boolean centered, float eps, LowerContext ctx) {
        if (x.size() == 0) {
            return Kernels.NONE;
        }
        if (rows > Integer.MAX_VALUE || segLen * segs > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(x.shape() + " has more than 2^31-1 rows or elements per row");
        }
        return new NormRows(x, y, gamma, beta, (int) rows, groups, (int) segLen, segs, perElement, centered, eps,
                ctx.parallel());
    }

    // ---------------------------------------------------------------- softmax

    /** One line per unit: max, sum of exp(x - max), then the scaled (or log) result. */
    static final class Softmax extends AxisLineKernel {
        private final boolean log;
        private final MemorySegment x;
        private final MemorySegment y;
        private final DType t;
        private final boolean vector;

        Softmax(boolean log, Buf x, Buf y, AxisLines lines, Parallel parallel) {
            super(lines, parallel);
            this.log = log;
            this.x = x.seg();
            this.y = y.seg();
            this.t = x.dtype();
            this.vector = t == DType.F32 && lines.step(0) == 1;
        }

        @Override
        public void range(int from, int to) {
            int n = lines.length();
            if (vector) {
                rowsF32(from, to, n);
                return;
            }
            for (int l = from; l < to; l++) {
                lineDouble(lines.start(0, l), n, lines.step(0));
            }
        }

        /** Rows {@code [from, to)}; each row's exp pass also finds the next row's max (its loads overlap). */
        private void rowsF32(int from, int to, int n) {
            if (from >= to) {
                return;
            }
            float max = RowsF32.extreme(x, lines.start(0, from), n, true);
            for (int l = from; l < to; l++) {
                long s = lines.start(0, l);
                if (l + 1 < to) {
                    long sumAndMax = RowsF32.expShiftedSumNextMax(x, s, y, s, n, max, lines.start(0, l + 1));
                    finishRow(s, n, max, RowsF32.high(sumAndMax));
                    max = RowsF32.low(sumAndMax);
                } else {
                    finishRow(s, n, max, RowsF32.expShiftedSum(x, s, y, s, n, max));
                }
            }
        }

        /** With {@code y = exp(x - max)} written and summed: the scaled (or log) result. */
        private void finishRow(long s, int n, float max, double sum) {
            if (log) {
                RowsF32.affine(x, s, y, s, n, max, 1f, 1f, (float) -StrictMath.log(sum));
            } else {
                FloatRows.scale(y, s, (float) (1 / sum), n);
            }
        }

        /** The scalar definition, in double. */
        private void lineDouble(long s, int n, long step) {
            double max = Double.NEGATIVE_INFINITY;
            for (int j = 0; j < n; j++) {
                max = Math.max(max, Elements.getDouble(x, s + j * step, t));
            }
            double sum = 0;
            for (int j = 0; j < n; j++) {
                sum += StrictMath.exp(Elements.getDouble(x, s + j * step, t) - max);
            }
            double logSum = StrictMath.log(sum);
            double inv = 1 / sum;
            for (int j = 0; j < n; j++) {
                long i = s + j * step;
                double v = Elements.getDouble(x, i, t) - max;
                Elements.setDouble(y, i, t, log ? v - logSum : StrictMath.exp(v) * inv);
            }
        }
    }

    // ---------------------------------------------------------------- layer / RMS / group norm

    /**
     * One contiguous row per unit: {@code y = (x - mean) / sqrt(var + eps) * gamma + beta}, with mean 0 when
     * not {@code centered} (RMS). A row is {@code segs} segments of {@code segLen}; gamma and beta are read
     * per element of the row ({@code perElement}: layer and RMS norm) or once per segment at channel
     * {@code (row % groups) * segs + segment} (group norm).
     */
    static final class NormRows implements Kernel, RangeTask {
        private final MemorySegment x;
        private final MemorySegment y;
        private final MemorySegment gamma;
        private final MemorySegment beta; // null: no bias
        private final DType t;
        final int rows;
        private final int groups;
        private final int segLen;
        private final int segs;
        final int rowLen;
        private final boolean perElement;
        private final boolean centered;
        private final double eps;
        private final boolean vector;
        private final boolean pipelined; // f32 layer or RMS norm over whole rows: see rowsPipelinedF32
        private final Parallel parallel;

        NormRows(Buf x, Buf y, Buf gamma, Buf beta, int rows, int groups, int segLen, int segs, boolean perElement,
                 boolean centered, float eps, Parallel parallel) {
            this.x = x.seg();
            this.y = y.seg();
            this.gamma = gamma.seg();
            this.beta = beta == null ? null : beta.seg();
            this.t = x.dtype();
            this.rows = rows;
            this.groups = groups;
            this.segLen = segLen;
            this.segs = segs;
            this.rowLen = segLen * segs;
            this.perElement = perElement;
            this.centered = centered;
            this.eps = eps;
            this.vector = t == DType.F32;
            this.pipelined = vector && perElement && segs == 1 && (centered || beta == null);
            this.parallel = parallel;
        }

        @Override
        public void run() {
            parallel.parallelFor(rows, Grain.of(rowLen), this);
        }

        @Override
        public void range(int from, int to) {
            if (pipelined) {
                rowsPipelinedF32(from, to);
                return;
            }
            for (int r = from; r < to; r++) {
                row(r);
            }
        }

        /**
         * Rows {@code [from, to)} of a layer or RMS norm with each row's output pass fused with the next row's
         * first pass (its sum, or for RMS its sum of squares): loads from memory overlap the stores. Same
         * arithmetic as {@link #rowF32}.
         */
        private void rowsPipelinedF32(int from, int to) {
            if (from >= to) {
                return;
            }
            long first = (long) from * rowLen;
            double firstPass = centered
                    ? RowsF32.sumShifted(x, first, rowLen, x.getAtIndex(JAVA_FLOAT, first))
                    : RowsF32.sumSquaredDeviations(x, first, rowLen, 0f);
            for (int r = from; r < to; r++) {
                long off = (long) r * rowLen;
                float mean = 0f;
                double var = firstPass / rowLen;
                if (centered) {
                    mean = (float) (x.getAtIndex(JAVA_FLOAT, off) + firstPass / rowLen);
                    var = RowsF32.sumSquaredDeviations(x, off, rowLen, mean) / rowLen;
                }
                float rstd = (float) (1 / Math.sqrt(var + eps));
                long next = off + rowLen;
                if (r + 1 == to) {
                    RowsF32.normalize(x, off, y, off, rowLen, mean, rstd, gamma, 0, beta, 0);
                } else if (centered) {
                    firstPass = RowsF32.normalizeThenSum(x, off, y, off, rowLen, mean, rstd, gamma, 0, beta, 0, next,
                            x.getAtIndex(JAVA_FLOAT, next));
                } else {
                    firstPass = RowsF32.normalizeThenSumSquares(x, off, y, off, rowLen, rstd, gamma, 0, next);
                }
            }
        }

        /** Normalises row {@code r}. */
        void row(int r) {
            long off = (long) r * rowLen;
            if (vector) {
                rowF32(r, off);
            } else {
                rowDouble(r, off);
            }
        }

        private void rowF32(int r, long off) {
            // the mean of deviations from the first element: exact for rows far from 0 (see sumShifted)
            float pivot = centered ? x.getAtIndex(JAVA_FLOAT, off) : 0f;
            float mean = centered ? (float) (pivot + RowsF32.sumShifted(x, off, rowLen, pivot) / rowLen) : 0f;
            double var = RowsF32.sumSquaredDeviations(x, off, rowLen, mean) / rowLen;
            float rstd = (float) (1 / Math.sqrt(var + eps));
            for (int s = 0; s < segs; s++) {
                long so = off + (long) s * segLen;
                if (perElement) {
                    long go = (long) s * segLen;
                    RowsF32.normalize(x, so, y, so, segLen, mean, rstd, gamma, go, beta, go);
                } else {
                    long c = channel(r, s);
                    float b = beta == null ? 0f : beta.getAtIndex(JAVA_FLOAT, c);
                    RowsF32.affine(x, so, y, so, segLen, mean, rstd, gamma.getAtIndex(JAVA_FLOAT, c), b);
                }
            }
        }

        /** The scalar definition, in double. */
        private void rowDouble(int r, long off) {
            double mean = 0;
            if (centered) {
                for (int j = 0; j < rowLen; j++) {
                    mean += Elements.getDouble(x, off + j, t);
                }
                mean /= rowLen;
            }
            double var = 0;
            for (int j = 0; j < rowLen; j++) {
                double d = Elements.getDouble(x, off + j, t) - mean;
                var += d * d;
            }
            double rstd = 1 / Math.sqrt(var / rowLen + eps);
            for (int j = 0; j < rowLen; j++) {
                long p = perElement ? j : channel(r, j / segLen);
                double b = beta == null ? 0 : Elements.getDouble(beta, p, t);
                double v = (Elements.getDouble(x, off + j, t) - mean) * rstd * Elements.getDouble(gamma, p, t) + b;
                Elements.setDouble(y, off + j, t, v);
            }
        }

        private long channel(int row, int segment) {
            return (long) (row % groups) * segs + segment;
        }
    }
}
