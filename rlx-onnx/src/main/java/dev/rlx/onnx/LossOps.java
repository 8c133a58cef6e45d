package dev.rlx.onnx;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Value;
import java.util.Map;

/** NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, as gathers, products and reductions. */
final class LossOps {
    private LossOps() {}

    static void register(Map<String, Converter> t) {
        t.put("NegativeLogLikelihoodLoss", c -> c.out(nll(c, c.in(0))));
        t.put("SoftmaxCrossEntropyLoss", c -> {
            Value logProb = c.g().logSoftmax(c.in(0), 1);
            c.out(nll(c, logProb), logProb);
        });
    }

    /**
     * {@code loss[n, d..] = -x[n, target[n, d..], d..] * weight[target]}, zero where the target is
     * {@code ignore_index}; reduced by {@code none}, {@code sum}, or {@code mean} (divided by the summed
     * weights of the targets that count).
     */
    private static Value nll(NodeCtx c, Value x) {
        Graph g = c.g();
        Value target = Lower.cast(g, c.in(1), DType.I64);
        if (x.rank() < 2 || target.rank() != x.rank() - 1) {
            throw c.fail("input %s must be [N, C, ...] and target %s [N, ...]", x.shape(), target.shape());
        }
        Value valid = null;
        Value safe = target;
        if (c.hasAttr("ignore_index")) {
            Value ii = Lower.scalar(g, DType.I64, c.attrInt("ignore_index", 0));
            valid = g.ne(target, ii);
            safe = g.where(valid, target, Lower.scalar(g, DType.I64, 0));
        }
        Value picked = IndexOps.gatherElements(c, x, Lower.unsqueeze(g, safe, 1), 1);
        picked = Lower.reshape(g, picked, target.shape().dims());
        Value w = c.has(2) ? g.gather(c.in(2), safe, 0) : g.expand(Lower.scalar(g, x.dtype(), 1), target.shape().dims());
        if (valid != null) {
            w = g.where(valid, w, Lower.scalar(g, x.dtype(), 0));
        }
        Value loss = g.neg(g.mul(picked, w));
        String red = c.attrString("reduction", "mean");
        return switch (red) {
            case "none" -> loss;
            case "sum" -> g.reduceSum(loss, false);
            case "mean" -> g.div(g.reduceSum(loss, false), g.reduceSum(w, false));
            default -> throw c.fail("reduction must be none, sum or mean but is '%s'", red);
        };
    }
}
