package dev.rlx.cpu;

import static dev.rlx.testkit.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.testkit.reference.Ref;
import dev.rlx.cpu.testing.SmallCnn;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.models.LlamaBlock;
import dev.rlx.opt.PrecisionPolicy;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each precision policy on a decoder block and a CNN against the float64 reference, with a tolerance per
 * policy derived from the storage type's unit roundoff (f32 2^-24, f16 2^-11, bf16 2^-8): a value is stored
 * rounded at every step, so errors grow by a few roundoffs per layer on values of order 1.
 */
class PrecisionPolicyTest {

    /**
     * Max absolute error allowed on outputs of order 1 for each policy: about 4x the worst error measured
     * (decoder block / CNN: F32 3.6e-7 / 3.1e-7, F16 1.1e-3 / 5.5e-4, AMP 4.5e-4 / 3.4e-4, BF16 1.1e-2 /
     * 4.4e-3, AMP_BF16 3.5e-3 / 4.0e-3), i.e. a few roundoffs of the storage type (f16 2^-11, bf16 2^-8).
     */
    static double tolerance(PrecisionPolicy p) {
        return switch (p) {
            case F32 -> 2e-6;
            case F16, AMP -> 5e-3;
            case BF16, AMP_BF16 -> 5e-2;
        };
    }

    private static double[] run(Graph g, Map<String, float[]> data, PrecisionPolicy p, long[] arena) {
        try (Session s = new Session(Device.CPU, CompileOptions.defaults().withPrecision(p));
             CompiledGraph c = s.compile(g)) {
            data.forEach((k, v) -> {
                if (c.inputNames().contains(k)) {
                    c.setInput(k, v);
                } else {
                    c.setParam(k, v);
                }
            });
            c.run();
            arena[0] = c.arenaBytes() + c.weights().byteSize(); // activations + weights: what the graph keeps resident
            double[] out = new double[(int) c.output(0).size()];
            c.output(0).copyTo(out);
            return out;
        }
    }

    @ParameterizedTest
    @EnumSource(PrecisionPolicy.class)
    void decoderBlock_eachPolicy_withinItsTolerance(PrecisionPolicy p) {
        LlamaBlock b = new LlamaBlock(1, 16, 128, 4, 2, 32, 256, 1e-5f, 10_000);
        Map<String, Tensor> w = b.randomWeights(11);
        Tensor x = b.randomInput(12);
        Map<String, float[]> data = new HashMap<>();
        w.forEach((k, v) -> data.put(k, v.toFloatArray()));
        data.put("x", x.toFloatArray());
        double[] out = run(b.build(), data, p, new long[1]);
        assertClose(DecoderBlockTest.reference(b, w, x), out, tolerance(p), 0, "decoder block " + p);
    }

    @ParameterizedTest
    @EnumSource(PrecisionPolicy.class)
    void smallCnn_eachPolicy_withinItsTolerance(PrecisionPolicy p) {
        Map<String, Ref> d = SmallCnn.data(7);
        Map<String, float[]> data = new HashMap<>();
        d.forEach((k, v) -> data.put(k, v.floats()));
        double[] logits = run(SmallCnn.build(), data, p, new long[1]);
        assertClose(SmallCnn.reference(d)[0].data(), logits, tolerance(p), 0, "small cnn logits " + p);
    }

    @Test
    void halfPolicies_shrinkTheArena() {
        LlamaBlock b = LlamaBlock.demo();
        Map<String, float[]> data = new HashMap<>();
        b.randomWeights(1).forEach((k, v) -> data.put(k, v.toFloatArray()));
        data.put("x", b.randomInput(2).toFloatArray());
        long[] f32 = new long[1];
        long[] f16 = new long[1];
        long[] amp = new long[1];
        run(b.build(), data, PrecisionPolicy.F32, f32);
        run(b.build(), data, PrecisionPolicy.F16, f16);
        run(b.build(), data, PrecisionPolicy.AMP, amp);
        // weights dominate the demo block: half storage should take close to half the bytes
        assertTrue(f16[0] < 0.6 * f32[0], "f16 arena + weights " + f16[0] + " vs f32 " + f32[0]);
        assertTrue(amp[0] < 0.6 * f32[0], "amp arena + weights " + amp[0] + " vs f32 " + f32[0]);
    }
}
