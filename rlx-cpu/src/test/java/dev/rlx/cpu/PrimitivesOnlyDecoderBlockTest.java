package dev.rlx.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.models.LlamaBlock;
import dev.rlx.opt.Primitives;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Session;
import dev.rlx.testkit.PrimitivesOnly;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Llama block of {@code rlx demo} on a backend that claims only the primitive ops (the CPU's kernels behind
 * {@link PrimitivesOnly}): RMS norms, RoPE, grouped-query causal attention, SiLU all arrive decomposed, and the
 * result stays within 1e-4 of the CPU running its fused kernels.
 */
class PrimitivesOnlyDecoderBlockTest {
    private static float[] run(Session s, Graph g, Map<String, Tensor> weights, Tensor x) {
        try (CompiledGraph c = s.compile(g)) {
            weights.forEach(c::setParam);
            c.setInput("x", x);
            c.run();
            return c.output(0).toFloatArray();
        }
    }

    @Test
    void demoBlock_onPrimitivesOnly_matchesTheCpuWithin1e4() {
        LlamaBlock b = LlamaBlock.demo();
        Map<String, Tensor> w = b.randomWeights(42);
        Tensor x = b.randomInput(43);
        CompileOptions o = CompileOptions.defaults();
        try (Session cpu = new Session(new CpuBackend(), o, null);
             Session primitive = new Session(new PrimitivesOnly(new CpuBackend()), o, null)) {
            float[] fused = run(cpu, b.build(), w, x);
            float[] decomposed = run(primitive, b.build(), w, x);
            try (CompiledGraph c = primitive.compile(b.build())) {
                for (Node n : c.graph().nodes()) {
                    assertTrue(Primitives.isPrimitive(n.op()), "the primitive backend was given " + n.describe());
                }
            }
            assertEquals(fused.length, decomposed.length);
            double worst = 0;
            for (int i = 0; i < fused.length; i++) {
                worst = Math.max(worst, Math.abs(fused[i] - decomposed[i]));
            }
            assertTrue(worst <= 1e-4, "max |fused - decomposed| = " + worst);
        }
    }
}
