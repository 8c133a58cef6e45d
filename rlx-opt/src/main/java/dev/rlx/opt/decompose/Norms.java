package dev.rlx.opt.decompose;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Value;
import dev.rlx.opt.Rewriter;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Layer, RMS and group normalisation in reductions and element-wise ops. The variance takes two passes, as
 * the CPU kernel does: the mean, then the mean of squared deviations from it, so there is no cancellation
 * (the one-pass {@code E[x^2] - E[x]^2} loses every digit on rows far from 0), and the mean is of the row
 * shifted by its first element (see {@link #normalize}). RMS squares x in the data's type, so in f32 it
 * overflows for |x| above about 1.8e19, as the CPU kernel (which also squares in f32) does.
 */
final class Norms {
    private Norms() {}

    /** {@code (x - mean) * rsqrt(var + eps) * gamma [+ beta]} over axes {@code [axis, rank)}. */
    static List<Value> layerNorm(Node n, Rewriter r) {
        Op.LayerNorm op = (Op.LayerNorm) n.op();
        return List.of(trailing(r, n, op.axis(), op.eps(), true));
    }

    /** {@code x * rsqrt(mean(x^2) + eps) * gamma [+ beta]} over axes {@code [axis, rank)}. */
    static List<Value> rmsNorm(Node n, Rewriter r) {
        Op.RmsNorm op = (Op.RmsNorm) n.op();
        return List.of(trailing(r, n, op.axis(), op.eps(), false));
    }

    /**
     * {@code x [N, C, *spatial]} viewed as {@code [N, G, C/G, *spatial]}, normalised over everything after G,
     * viewed back, then {@code * gamma[c] + beta[c]} along the channels.
     */
    static List<Value> groupNorm(Node n, Rewriter r) {
        Op.GroupNorm op = (Op.GroupNorm) n.op();
        Graph g = r.graph();
        List<Value> in = r.get(n.inputs());
        Value x = in.get(0);
        int rank = x.rank();
        int groups = op.numGroups();
        int[] grouped = new int[rank + 1];
        grouped[0] = x.dim(0);
        grouped[1] = groups;
        grouped[2] = x.dim(1) / groups;
        for (int i = 2; i < rank; i++) {
            grouped[i + 1] = x.dim(i);
        }
        Value y = normalize(g, g.reshape(x, grouped), op.eps(), true, range(2, rank + 1));
        y = g.reshape(y, x.shape().dims());
        // gamma [C] against x [N, C, *spatial]: trailing ones put C on x's channel dim
        int[] perChannel = new int[rank - 1];
        Arrays.fill(perChannel, 1);
        perChannel[0] = x.dim(1);
        Value gamma = rank > 2 ? g.reshape(in.get(1), perChannel) : in.get(1);
        Value beta = rank > 2 ? g.reshape(in.get(2), perChannel) : in.get(2);
        return List.of(g.add(g.mul(y, gamma), beta));
    }

    /** Layer or RMS norm of operands (x, gamma[, beta]) of {@code n} over the trailing axes from {@code axis}. */
    private static Value trailing(Rewriter r, Node n, int axis, float eps, boolean centered) {
        Graph g = r.graph();
        List<Value> in = r.get(n.inputs());
        Value x = in.get(0);
        // gamma and beta have exactly x's dims from axis on, so they broadcast along the leading ones
        Value y = g.mul(normalize(g, x, eps, centered, range(axis, x.rank())), in.get(1));
        return in.size() > 2 ? g.add(y, in.get(2)) : y;
    }

    /**
     * {@code d * rsqrt(mean(d^2) + eps)} over {@code axes}, where d is x less its mean when {@code centered}.
     * The mean is taken of x less the row's first element, as the CPU kernel does: summed as they are, rows of
     * large values of one sign lose digits that the subtraction of the mean then exposes (rows of 1000 values
     * in [99, 101]: max error 4.4e-5 against a float64 reference unshifted, 6.4e-7 shifted; the kernel, which
     * rounds the shifted mean back to a float, 1.3e-5).
     */
    private static Value normalize(Graph g, Value x, float eps, boolean centered, int... axes) {
        Value d = x;
        if (centered) {
            Value shifted = hasEmptyAxis(x, axes) ? x : g.sub(x, first(g, x, axes));
            d = g.sub(shifted, g.reduceMean(shifted, true, axes));
        }
        Value var = g.reduceMean(g.mul(d, d), true, axes);
        return g.mul(d, g.rsqrt(g.add(var, g.scalar(x.dtype(), eps))));
    }

    /** The first element of each row over {@code axes} (kept as dims of 1). */
    private static Value first(Graph g, Value x, int... axes) {
        Value p = x;
        for (int a : axes) {
            p = g.narrow(p, a, 0, 1);
        }
        return p;
    }

    private static boolean hasEmptyAxis(Value x, int... axes) {
        return Arrays.stream(axes).anyMatch(a -> x.dim(a) == 0);
    }

    /** {@code from, from + 1, ..., to - 1}. */
    private static int[] range(int from, int to) {
        return IntStream.range(from, to).toArray();
    }
}
