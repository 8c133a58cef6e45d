package dev.rlx.cpu;

import dev.rlx.cpu.testing.Close;
import dev.rlx.cpu.testing.NnReference;
import dev.rlx.cpu.testing.Ref;
import dev.rlx.cpu.testing.Runner;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A small CNN end to end on the CPU backend against a float64 reference: conv 3x3 (pad 1) -> add bias ->
 * relu -> maxpool 2 -> conv 3x3 with bias -> relu -> avgpool 2 -> flatten -> matmul + bias -> softmax,
 * batch 4. Both the logits and the class probabilities are outputs and checked.
 */
class SmallCnnTest {
    private static final int BATCH = 4;
    private static final int CLASSES = 10;

    /**
     * Every stage is continuous (relu and max included), so f32 rounding only accumulates: each of the ~5
     * stages adds about 1e-7 relative on values of size ~1 and the final dot product sums 256 terms; the
     * observed worst error is 1.2e-7 on logits of size ~1.
     */
    private static final double ATOL = 1e-5;
    private static final double RTOL = 1e-5;

    @Test
    void smallCnn_logitsAndProbabilitiesMatchFloat64Reference() {
        Graph g = new Graph("small_cnn");
        Value x = g.input("x", Shape.of(DType.F32, BATCH, 3, 16, 16));
        Value w1 = g.param("w1", Shape.of(DType.F32, 8, 3, 3, 3));
        Value b1 = g.param("b1", Shape.of(DType.F32, 8));
        Value w2 = g.param("w2", Shape.of(DType.F32, 16, 8, 3, 3));
        Value b2 = g.param("b2", Shape.of(DType.F32, 16));
        Value wf = g.param("wf", Shape.of(DType.F32, 16 * 4 * 4, CLASSES));
        Value bf = g.param("bf", Shape.of(DType.F32, CLASSES));

        Op.Conv conv3x3 = Op.Conv.of(2).withPads(1, 1);
        Value h = g.conv(x, w1, null, conv3x3);
        h = g.relu(g.add(h, g.reshape(b1, 1, 8, 1, 1)));
        h = g.maxPool(h, 2, 2);
        h = g.relu(g.conv(h, w2, b2, conv3x3));
        h = g.avgPool(h, 2, 2);
        Value logits = g.add(g.matmul(g.reshape(h, BATCH, 16 * 4 * 4), wf), bf);
        g.setOutputs(logits, g.softmax(logits, 1));

        Random r = new Random(2024);
        Ref xr = Ref.random(r, -1, 1, BATCH, 3, 16, 16);
        Ref w1r = weights(r, 3 * 9, 8, 3, 3, 3);
        Ref b1r = weights(r, 1, 8);
        Ref w2r = weights(r, 8 * 9, 16, 8, 3, 3);
        Ref b2r = weights(r, 1, 16);
        Ref wfr = weights(r, 256, 256, CLASSES);
        Ref bfr = weights(r, 1, CLASSES);
        List<double[]> outs = Runner.run(g, Map.of("x", xr, "w1", w1r, "b1", b1r, "w2", w2r, "b2", b2r, "wf", wfr,
                "bf", bfr));

        Ref e = NnReference.conv(xr, w1r, null, conv3x3);
        e = relu(addChannelBias(e, b1r));
        e = NnReference.pool(e, Op.Pool.of(Op.Pool.Kind.MAX, 2, 2));
        e = relu(NnReference.conv(e, w2r, b2r, conv3x3));
        e = NnReference.pool(e, Op.Pool.of(Op.Pool.Kind.AVG, 2, 2));
        Ref expected = linear(new Ref(new int[] {BATCH, 256}, e.data()), wfr, bfr);
        Close.assertClose(expected.data(), outs.get(0), ATOL, RTOL, "small cnn logits");
        Close.assertClose(softmaxRows(expected).data(), outs.get(1), ATOL, RTOL, "small cnn probabilities");
    }

    private static Ref softmaxRows(Ref x) {
        Ref out = Ref.zeros(x.dims());
        for (int i = 0; i < x.dim(0); i++) {
            double max = Double.NEGATIVE_INFINITY;
            for (int j = 0; j < x.dim(1); j++) {
                max = Math.max(max, x.at(i, j));
            }
            double sum = 0;
            for (int j = 0; j < x.dim(1); j++) {
                sum += Math.exp(x.at(i, j) - max);
            }
            for (int j = 0; j < x.dim(1); j++) {
                out.set(Math.exp(x.at(i, j) - max) / sum, i, j);
            }
        }
        return out;
    }

    /** Uniform in +-1/sqrt(fanIn), so activations stay of order 1 through the layers. */
    private static Ref weights(Random r, int fanIn, int... dims) {
        double s = 1 / Math.sqrt(fanIn);
        return Ref.random(r, -s, s, dims);
    }

    private static Ref addChannelBias(Ref x, Ref bias) {
        Ref out = Ref.zeros(x.dims());
        for (int i = 0; i < x.size(); i++) {
            out.data()[i] = x.data()[i] + bias.at(x.unravel(i)[1]);
        }
        return out;
    }

    private static Ref relu(Ref x) {
        return x.map(v -> Math.max(v, 0));
    }

    /** {@code x [N, K] @ w [K, M] + b [M]}. */
    private static Ref linear(Ref x, Ref w, Ref b) {
        int n = x.dim(0);
        int k = x.dim(1);
        int m = w.dim(1);
        Ref out = Ref.zeros(n, m);
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < m; j++) {
                double acc = b.at(j);
                for (int p = 0; p < k; p++) {
                    acc += x.at(i, p) * w.at(p, j);
                }
                out.set(acc, i, j);
            }
        }
        return out;
    }
}
