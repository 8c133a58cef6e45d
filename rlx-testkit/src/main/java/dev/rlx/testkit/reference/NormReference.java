package dev.rlx.testkit.reference;

import dev.rlx.ir.Shape;
import java.util.List;

/**
 * Softmax, log-softmax and the normalisations in double, straight from their definitions in {@code Op}: the
 * max subtracted before {@code exp}, population variances, {@code eps} inside the square root.
 */
final class NormReference {
    private NormReference() {}

    /** {@code exp(x - max) / sum(exp(x - max))} (or {@code log}: {@code x - max - log(sum)}) along {@code axis}. */
    static RefTensor softmax(RefTensor x, int axis, boolean log, Shape out) {
        double[] y = new double[x.size()];
        for (int[] line : Index.lines(x.shape.dims(), axis)) {
            double max = Double.NEGATIVE_INFINITY;
            for (int p : line) {
                max = Math.max(max, x.get(p));
            }
            double sum = 0;
            for (int p : line) {
                sum += Math.exp(x.get(p) - max);
            }
            for (int p : line) {
                double v = x.get(p) - max;
                y[p] = log ? v - Math.log(sum) : Math.exp(v) / sum;
            }
        }
        return RefTensor.rounded(out, y);
    }

    /**
     * Layer norm ({@code centered}: {@code (x - mean) / sqrt(var + eps) * gamma + beta}) or RMS norm
     * ({@code x / sqrt(mean(x^2) + eps) * gamma + beta}) over the dims from {@code axis}; gamma and beta (may be
     * null) are indexed by the position within those dims.
     */
    static RefTensor trailingNorm(RefTensor x, RefTensor gamma, RefTensor beta, int axis, double eps,
                                  boolean centered, Shape out) {
        int d = (int) x.shape.elementCount(axis, x.shape.rank());
        double[] y = new double[x.size()];
        for (int r = 0; d > 0 && r < x.size() / d; r++) {
            double mean = 0;
            if (centered) {
                for (int j = 0; j < d; j++) {
                    mean += x.get(r * d + j);
                }
                mean /= d;
            }
            double var = 0;
            for (int j = 0; j < d; j++) {
                double dev = x.get(r * d + j) - mean;
                var += dev * dev;
            }
            double rstd = 1 / Math.sqrt(var / d + eps);
            for (int j = 0; j < d; j++) {
                double b = beta == null ? 0 : beta.get(j);
                y[r * d + j] = (x.get(r * d + j) - mean) * rstd * gamma.get(j) + b;
            }
        }
        return RefTensor.rounded(out, y);
    }

    /** Group norm of {@code x [N, C, ...]}: each group of {@code C / groups} channels over all positions. */
    static RefTensor groupNorm(RefTensor x, RefTensor gamma, RefTensor beta, int groups, double eps, Shape out) {
        int n = x.shape.dim(0);
        int c = x.shape.dim(1);
        int spatial = n * c == 0 ? 0 : x.size() / (n * c);
        int perGroup = c / groups * spatial;
        double[] y = new double[x.size()];
        for (int b = 0; b < n; b++) {
            for (int g = 0; g < groups; g++) {
                int base = (b * c + g * (c / groups)) * spatial;
                double mean = 0;
                for (int j = 0; j < perGroup; j++) {
                    mean += x.get(base + j);
                }
                mean /= perGroup;
                double var = 0;
                for (int j = 0; j < perGroup; j++) {
                    double dev = x.get(base + j) - mean;
                    var += dev * dev;
                }
                double rstd = 1 / Math.sqrt(var / perGroup + eps);
                for (int j = 0; j < perGroup; j++) {
                    int ch = g * (c / groups) + j / spatial;
                    y[base + j] = (x.get(base + j) - mean) * rstd * gamma.get(ch) + beta.get(ch);
                }
            }
        }
        return RefTensor.rounded(out, y);
    }

    /**
     * {@code sum = x + residual}, stored in the dtype (it is the next residual stream, output 0), then the norm of
     * that stored sum (output 1), exactly as the unfused add and norm would compute.
     */
    static List<RefTensor> addNorm(List<RefTensor> in, boolean rms, int axis, double eps, List<Shape> out) {
        RefTensor sum = ElementwiseReference.binary(dev.rlx.ir.BinaryKind.ADD, in.get(0), in.get(1), out.get(0));
        RefTensor beta = in.size() > 3 ? in.get(3) : null;
        return List.of(sum, trailingNorm(sum, in.get(2), beta, axis, eps, !rms, out.get(1)));
    }
}
