package dev.rlx.cpu.testing;

import dev.rlx.testkit.reference.NnReference;
import dev.rlx.testkit.reference.Ref;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

/**
 * A small CNN and its float64 reference: conv 3x3 (pad 1) -> add bias -> relu -> maxpool 2 -> conv 3x3 with
 * bias -> relu -> avgpool 2 -> flatten -> matmul + bias -> softmax, on batch 4 of 3x16x16 images. Outputs
 * (logits, probabilities).
 */
public final class SmallCnn {
    public static final int BATCH = 4;
    public static final int CLASSES = 10;
    private static final Op.Conv CONV3X3 = Op.Conv.of(2).withPads(1, 1);

    private SmallCnn() {}

    public static Graph build() {
        Graph g = new Graph("small_cnn");
        Value x = g.input("x", Shape.of(DType.F32, BATCH, 3, 16, 16));
        Value w1 = g.param("w1", Shape.of(DType.F32, 8, 3, 3, 3));
        Value b1 = g.param("b1", Shape.of(DType.F32, 8));
        Value w2 = g.param("w2", Shape.of(DType.F32, 16, 8, 3, 3));
        Value b2 = g.param("b2", Shape.of(DType.F32, 16));
        Value wf = g.param("wf", Shape.of(DType.F32, 16 * 4 * 4, CLASSES));
        Value bf = g.param("bf", Shape.of(DType.F32, CLASSES));
        Value h = g.conv(x, w1, null, CONV3X3);
        h = g.relu(g.add(h, g.reshape(b1, 1, 8, 1, 1)));
        h = g.maxPool(h, 2, 2);
        h = g.relu(g.conv(h, w2, b2, CONV3X3));
        h = g.avgPool(h, 2, 2);
        Value logits = g.add(g.matmul(g.reshape(h, BATCH, 16 * 4 * 4), wf), bf);
        g.setOutputs(logits, g.softmax(logits, 1));
        return g;
    }

    /** Deterministic input and weights (uniform in +-1/sqrt(fanIn) so activations stay of order 1). */
    public static Map<String, Ref> data(long seed) {
        Random r = new Random(seed);
        Map<String, Ref> d = new LinkedHashMap<>();
        d.put("x", Ref.random(r, -1, 1, BATCH, 3, 16, 16));
        d.put("w1", weights(r, 3 * 9, 8, 3, 3, 3));
        d.put("b1", weights(r, 1, 8));
        d.put("w2", weights(r, 8 * 9, 16, 8, 3, 3));
        d.put("b2", weights(r, 1, 16));
        d.put("wf", weights(r, 256, 256, CLASSES));
        d.put("bf", weights(r, 1, CLASSES));
        return d;
    }

    private static Ref weights(Random r, int fanIn, int... dims) {
        double s = 1 / Math.sqrt(fanIn);
        return Ref.random(r, -s, s, dims);
    }

    /** (logits, probabilities) in float64 from the same data. */
    public static Ref[] reference(Map<String, Ref> d) {
        Ref e = NnReference.conv(d.get("x"), d.get("w1"), null, CONV3X3);
        e = relu(addChannelBias(e, d.get("b1")));
        e = NnReference.pool(e, Op.Pool.of(Op.Pool.Kind.MAX, 2, 2));
        e = relu(NnReference.conv(e, d.get("w2"), d.get("b2"), CONV3X3));
        e = NnReference.pool(e, Op.Pool.of(Op.Pool.Kind.AVG, 2, 2));
        Ref logits = linear(new Ref(new int[] {BATCH, 256}, e.data()), d.get("wf"), d.get("bf"));
        return new Ref[] {logits, softmaxRows(logits)};
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
}
