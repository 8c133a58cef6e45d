package dev.rlx.onnx.embed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.cpu.CpuBackend;
import dev.rlx.ir.Node;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Tensor;
import dev.rlx.onnx.OnnxBinding;
import dev.rlx.onnx.OnnxGraph;
import dev.rlx.onnx.OnnxModel;
import dev.rlx.opt.Primitives;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Session;
import dev.rlx.testkit.PrimitivesOnly;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * all-MiniLM-L6-v2, imported from ONNX, on a backend that claims only the primitive ops (the CPU's kernels behind
 * {@link PrimitivesOnly}): the attention, layer norms and GELUs the passes would fuse arrive decomposed, and
 * {@code last_hidden_state} stays within 1e-4 of the CPU running its fused kernels.
 */
class PrimitivesOnlyMiniLmTest {
    private static float[] hidden(Session s, OnnxGraph g, Map<String, Tensor> in) {
        try (CompiledGraph c = g.compile(s, s.defaults(), null)) {
            in.forEach(c::setInput);
            c.run();
            return c.output(0).toFloatArray();
        }
    }

    @Test
    void miniLm_onPrimitivesOnly_matchesTheCpuWithin1e4() {
        OnnxModel model = MiniLm.FP32.model();
        Map<String, Tensor> in = MiniLmParityTest.randomInputs(11, 2, 16);
        OnnxGraph imported = model.importGraph(OnnxBinding.of(in));
        CompileOptions o = CompileOptions.defaults();
        try (Session cpu = new Session(new CpuBackend(), o, null);
             Session primitive = new Session(new PrimitivesOnly(new CpuBackend()), o, null)) {
            float[] fused = hidden(cpu, imported, in);
            float[] decomposed = hidden(primitive, imported, in);
            try (CompiledGraph c = imported.compile(primitive, o, null)) {
                Set<OpKind> seen = c.graph().nodes().stream().map(Node::kind).collect(Collectors.toSet());
                for (Node n : c.graph().nodes()) {
                    assertTrue(Primitives.isPrimitive(n.op()), "the primitive backend was given " + n.describe());
                }
                assertTrue(!seen.contains(OpKind.ATTENTION) && !seen.contains(OpKind.LAYER_NORM), seen.toString());
            }
            assertEquals(fused.length, decomposed.length);
            double worst = 0;
            for (int i = 0; i < fused.length; i++) {
                worst = Math.max(worst, Math.abs(fused[i] - decomposed[i]));
            }
            assertTrue(worst <= 1e-4, "max |fused - decomposed| over last_hidden_state = " + worst);
        }
    }
}
