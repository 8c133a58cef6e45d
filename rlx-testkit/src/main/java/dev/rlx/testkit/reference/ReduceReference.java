package dev.rlx.testkit.reference;

import dev.rlx.ir.DType;
import dev.rlx.ir.Op;
import dev.rlx.ir.ReduceKind;
import dev.rlx.ir.Shape;
import java.util.List;

/**
 * Reductions over axes, arg-max/min, prefix sums and top-k, as plain loops over the lines along an axis.
 * Floats accumulate in double and are stored once; integers accumulate in long and wrap to the width; values
 * that are selected rather than computed (max, top-k) are copied bit for bit.
 */
final class ReduceReference {
    private ReduceReference() {}

    /**
     * {@code Op.Reduce} over the {@code axes}. Over zero elements SUM gives 0, PROD 1, MAX -inf (the integer
     * minimum), MIN +inf (the integer maximum), MEAN NaN; MAX and MIN propagate NaN.
     */
    static RefTensor reduce(ReduceKind k, List<Integer> axes, RefTensor x, Shape out) {
        int[] dims = x.shape.dims();
        boolean[] reduced = new boolean[dims.length];
        long count = 1; // elements per output
        for (int a : axes) {
            reduced[a] = true;
            count *= dims[a];
        }
        RefTensor y = RefTensor.zeros(out);
        int n = y.size();
        if (x.dtype().isComplex()) {
            return complexReduce(k, x, reduced, y);
        }
        double[] acc = new double[n];
        long[] lacc = new long[n];
        java.util.Arrays.fill(acc, identity(k));
        java.util.Arrays.fill(lacc, integerIdentity(k, x.dtype()));
        int[] idx = new int[dims.length]; // odometer over x, row-major
        for (int f = 0; f < x.size(); f++) {
            if (f > 0) {
                for (int d = dims.length - 1; ++idx[d] == dims[d]; d--) {
                    idx[d] = 0;
                }
            }
            int o = outIndex(idx, dims, reduced);
            if (x.integral()) {
                long v = x.getLong(f);
                lacc[o] = switch (k) {
                    case SUM, MEAN -> lacc[o] + v;
                    case PROD -> lacc[o] * v;
                    case MAX -> Math.max(lacc[o], v);
                    case MIN -> Math.min(lacc[o], v);
                };
            } else {
                double v = x.get(f);
                acc[o] = switch (k) {
                    case SUM, MEAN -> acc[o] + v;
                    case PROD -> acc[o] * v;
                    case MAX -> Math.max(acc[o], v);
                    case MIN -> Math.min(acc[o], v);
                };
            }
        }
        for (int o = 0; o < n; o++) {
            if (x.integral()) {
                y.setLong(o, lacc[o]);
            } else {
                y.set(o, k == ReduceKind.MEAN ? acc[o] / count : acc[o]);
            }
        }
        return y;
    }

    /** Flat position in the output of input position {@code idx}: the kept dims only (a kept size-1 dim adds nothing). */
    private static int outIndex(int[] idx, int[] dims, boolean[] reduced) {
        int o = 0;
        for (int d = 0; d < dims.length; d++) {
            if (!reduced[d]) {
                o = o * dims[d] + idx[d];
            }
        }
        return o;
    }

    private static double identity(ReduceKind k) {
        return switch (k) {
            case SUM, MEAN -> 0;
            case PROD -> 1;
            case MAX -> Double.NEGATIVE_INFINITY;
            case MIN -> Double.POSITIVE_INFINITY;
        };
    }

    private static long integerIdentity(ReduceKind k, DType t) {
        return switch (k) {
            case SUM, MEAN -> 0;
            case PROD -> 1;
            case MAX -> Storage.min(t);
            case MIN -> Storage.max(t);
        };
    }

    /** Complex SUM and PROD; complex numbers have no order, so MAX and MIN are undefined. */
    private static RefTensor complexReduce(ReduceKind k, RefTensor x, boolean[] reduced, RefTensor y) {
        if (k != ReduceKind.SUM && k != ReduceKind.PROD) {
            throw new ReferenceException("reduce_" + k.label() + " is not defined on complex values (they have no order)");
        }
        int[] dims = x.shape.dims();
        double[] re = new double[y.size()];
        double[] im = new double[y.size()];
        for (int o = 0; o < y.size(); o++) {
            re[o] = k == ReduceKind.PROD ? 1 : 0;
        }
        for (int f = 0; f < x.size(); f++) {
            int o = outIndex(Index.unravel(f, dims), dims, reduced);
            double a = x.real[2 * f];
            double b = x.real[2 * f + 1];
            if (k == ReduceKind.SUM) {
                re[o] += a;
                im[o] += b;
            } else {
                double r = re[o] * a - im[o] * b;
                im[o] = re[o] * b + im[o] * a;
                re[o] = r;
            }
        }
        for (int o = 0; o < y.size(); o++) {
            y.real[2 * o] = (float) re[o];
            y.real[2 * o + 1] = (float) im[o];
        }
        return y;
    }

    // ---------------------------------------------------------------- arg-reduce

    /** Index of the first extreme along the axis; NaN counts as the extreme, the first NaN winning. */
    static RefTensor argReduce(Op.ArgReduce op, RefTensor x, Shape out) {
        requireOrdered(x, op.label());
        boolean largest = op.op() == Op.ArgReduce.Kind.ARGMAX;
        int[][] lines = Index.lines(x.shape.dims(), op.axis());
        RefTensor y = RefTensor.zeros(out);
        for (int l = 0; l < lines.length; l++) {
            int at = 0;
            for (int j = 1; j < lines[l].length && !isNaN(x, lines[l][at]); j++) {
                int c = compare(x, lines[l][j], lines[l][at]);
                if (isNaN(x, lines[l][j]) || (largest ? c > 0 : c < 0)) {
                    at = j;
                }
            }
            y.setLong(l, at);
        }
        return y;
    }

    private static boolean isNaN(RefTensor x, int i) {
        return !x.integral() && Double.isNaN(x.get(i));
    }

    /** Numeric order of elements i and j (integers as longs, exactly; floats with -0 equal to 0). */
    private static int compare(RefTensor x, int i, int j) {
        if (x.integral()) {
            return Long.compare(x.getLong(i), x.getLong(j));
        }
        double a = x.get(i);
        double b = x.get(j);
        return a < b ? -1 : a > b ? 1 : 0;
    }

    private static void requireOrdered(RefTensor x, String op) {
        if (x.dtype().isComplex()) {
            throw new ReferenceException(op + " is not defined on complex values (they have no order)");
        }
    }

    // ---------------------------------------------------------------- cumsum

    /** Inclusive or exclusive prefix sums along the axis, from the start or (reverse) the end. */
    static RefTensor cumsum(Op.Cumsum op, RefTensor x, Shape out) {
        RefTensor y = RefTensor.zeros(out);
        int width = x.dtype().isComplex() ? 2 : 1;
        for (int[] line : Index.lines(x.shape.dims(), op.axis())) {
            double[] acc = new double[width];
            long lacc = 0;
            for (int i = 0; i < line.length; i++) {
                int p = line[op.reverse() ? line.length - 1 - i : i];
                if (op.exclusive()) {
                    store(y, p, acc, lacc);
                }
                if (x.integral()) {
                    lacc += x.getLong(p);
                } else {
                    for (int c = 0; c < width; c++) {
                        acc[c] += x.real[width * p + c];
                    }
                }
                if (!op.exclusive()) {
                    store(y, p, acc, lacc);
                }
            }
        }
        return y;
    }

    private static void store(RefTensor y, int p, double[] acc, long lacc) {
        if (y.integral()) {
            y.setLong(p, lacc);
        } else if (acc.length == 2) {
            y.real[2 * p] = (float) acc[0];
            y.real[2 * p + 1] = (float) acc[1];
        } else {
            y.set(p, acc[0]);
        }
    }

    // ---------------------------------------------------------------- top-k

    /**
     * Values and I64 indices of the k best along the axis by repeated selection of the best element not yet
     * taken: NaN first, then by value (descending for largest), ties to the smaller index.
     */
    static List<RefTensor> topK(Op.TopK op, RefTensor x, List<Shape> out) {
        requireOrdered(x, "top_k");
        int k = op.k();
        int[][] lines = Index.lines(x.shape.dims(), op.axis());
        int[][] outLines = Index.lines(out.get(0).dims(), op.axis());
        RefTensor values = RefTensor.zeros(out.get(0));
        RefTensor indices = RefTensor.zeros(out.get(1));
        for (int l = 0; l < lines.length; l++) {
            int[] line = lines[l];
            boolean[] taken = new boolean[line.length];
            for (int i = 0; i < k; i++) {
                int best = -1;
                for (int j = 0; j < line.length; j++) {
                    if (!taken[j] && (best < 0 || ranksBefore(x, line[j], line[best], op.largest()))) {
                        best = j; // scanning in index order, so among equals the smaller index stays
                    }
                }
                taken[best] = true;
                values.copy(outLines[l][i], x, line[best]);
                indices.setLong(outLines[l][i], best);
            }
        }
        return List.of(values, indices);
    }

    /** Whether element a ranks strictly before element b: NaN first, then by value; -0 equals 0. */
    private static boolean ranksBefore(RefTensor x, int a, int b, boolean largest) {
        if (isNaN(x, a) || isNaN(x, b)) {
            return isNaN(x, a) && !isNaN(x, b);
        }
        int c = compare(x, a, b);
        return largest ? c > 0 : c < 0;
    }
}
