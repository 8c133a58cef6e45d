package dev.rlx.testkit.reference;

import dev.rlx.ir.DType;
import dev.rlx.ir.Shape;
import dev.rlx.runtime.RngOptions;
import dev.rlx.runtime.random.MinStdRand0;
import dev.rlx.runtime.random.Philox4x32;
import dev.rlx.runtime.random.StdDistributions;
import dev.rlx.runtime.random.StdNormal;

/**
 * {@code RngNormal} and {@code RngUniform} on the first run after compiling, drawing the streams
 * {@link RngOptions} defines: PHILOX element by element from Philox4x32-10 of counter (block, run 0) keyed by
 * the node's stream seed, computed in double; ORT sequentially from {@code minstd_rand0} through libstdc++'s
 * distributions, as ONNX Runtime; ZERO the distribution's mean.
 */
final class RngReference {
    private RngReference() {}

    /** Normal ({@code a} mean, {@code b} standard deviation) or uniform ({@code [a, b)}) values of {@code out}. */
    static RefTensor draw(boolean normal, double a, double b, long seed, boolean hasSeed, long key, RngOptions rng,
                          Shape out) {
        RefTensor y = RefTensor.zeros(out);
        switch (rng.generator()) {
            case PHILOX -> philox(y, normal, a, b, rng.streamSeed(seed, hasSeed, key));
            case ORT -> ort(y, normal, (float) a, (float) b, rng.ortEngineSeed(seed, hasSeed, key));
            case ZERO -> {
                for (int i = 0; i < y.size(); i++) {
                    y.set(i, normal ? a : (a + b) / 2);
                }
            }
        }
        return y;
    }

    /**
     * Block {@code i / 4} gives elements {@code 4b..4b+3}: four uniforms {@code a + u (b - a)} with
     * {@code u = (w >>> 8) 2^-24}, or two Box-Muller pairs from words (0, 1) and (2, 3):
     * {@code r cos(2 pi u2)} then {@code r sin(2 pi u2)} with {@code r = sqrt(-2 ln u1)}, u1 in (0, 1].
     */
    private static void philox(RefTensor y, boolean normal, double a, double b, long streamSeed) {
        int[] w = new int[4];
        for (int i = 0; i < y.size(); i++) {
            long block = i / 4;
            Philox4x32.block((int) block, (int) (block >>> 32), 0, 0, (int) streamSeed, (int) (streamSeed >>> 32), w, 0);
            int j = i % 4;
            if (normal) {
                int pair = j / 2 * 2;
                double r = Math.sqrt(-2 * Math.log(Philox4x32.unitOpenBelow(w[pair])));
                double theta = 2 * Math.PI * Philox4x32.unitFloat(w[pair + 1]);
                y.set(i, a + b * (r * (j % 2 == 0 ? Math.cos(theta) : Math.sin(theta))));
            } else {
                double v = a + Philox4x32.unitFloat(w[j]) * (b - a);
                // the interval stays half-open: a value that reaches b is the float just below it
                y.set(i, v >= b && b > a ? Math.nextDown((float) b) : v);
            }
        }
    }

    /** ONNX Runtime's fill: one engine per node, a fresh distribution per run, values in order. */
    private static void ort(RefTensor y, boolean normal, float a, float b, int engineSeed) {
        MinStdRand0 engine = new MinStdRand0(engineSeed);
        StdNormal stdNormal = new StdNormal();
        for (int i = 0; i < y.size(); i++) {
            if (y.dtype() == DType.F64) {
                y.set(i, normal ? stdNormal.nextDouble(engine, a, b) : StdDistributions.uniformDouble(engine, a, b));
            } else {
                y.set(i, normal ? stdNormal.nextFloat(engine, a, b) : StdDistributions.uniformFloat(engine, a, b));
            }
        }
    }
}
