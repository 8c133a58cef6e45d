package dev.rlx.cpu;

import static dev.rlx.testkit.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.cpu.testing.Runner;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.opt.AddNormFusion;
import dev.rlx.opt.AlgebraicSimplification;
import dev.rlx.opt.CommonSubexpressionElimination;
import dev.rlx.opt.ConstantFolding;
import dev.rlx.opt.DeadCodeElimination;
import dev.rlx.opt.ElementwiseFusion;
import dev.rlx.opt.Pass;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.TensorView;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each pass on its own: applied to a graph that has what it looks for, it removes nodes, and the rewritten
 * graph computes the same outputs on random inputs (both compiled with the optimising passes off).
 */
class PassEquivalenceTest {

    /** Folds with the CPU backend's own evaluator, as the runtime does. */
    private static final dev.rlx.opt.ConstantEvaluator EVALUATOR = new CpuBackend().constantEvaluator(CompileOptions.defaults());

    static Stream<Pass> passes() {
        return Stream.of(new AlgebraicSimplification(), new ConstantFolding(EVALUATOR),
                new CommonSubexpressionElimination(), new DeadCodeElimination(), new AddNormFusion(),
                new ElementwiseFusion(dev.rlx.opt.Capabilities.all()));
    }

    /** A transformer-ish block with something for every pass: neutral ops, constants, repeats, dead code. */
    private static Graph graph() {
        Graph g = new Graph("every_pattern");
        Value x = g.input("x", Shape.of(DType.F32, 6, 16));
        Value w = g.param("w", Shape.of(DType.F32, 16, 16));
        Value b = g.param("b", Shape.of(DType.F32, 16));
        Value gamma = g.param("gamma", Shape.of(DType.F32, 16));
        Value scale = g.sqrt(g.add(g.scalar(3f), g.scalar(1f)));                  // constant: folds to 2
        Value h1 = g.gelu(g.add(g.matmul(x, w), b));                               // matmul + bias + act
        Value h2 = g.gelu(g.add(g.matmul(x, w), b));                               // the same again: CSE
        Value s = g.add(x, g.mul(g.add(h1, h2), g.reciprocal(scale)));             // residual
        Value n = g.rmsNorm(s, gamma, 1e-6f);                                      // residual + norm
        Value y = g.reshape(g.reshape(g.add(s, g.mul(n, g.scalar(1f))), 96), 6, 16); // x*1, reshape chain
        g.exp(y);                                                                  // dead
        g.setOutputs(g.tanh(g.sub(y, g.scalar(0f))));
        return g;
    }

    @ParameterizedTest
    @MethodSource("passes")
    void pass_removesNodes_andKeepsOutputs(Pass pass) {
        Graph g = graph();
        Graph rewritten = pass.apply(g);
        rewritten.verify();
        assertTrue(rewritten.size() < g.size(), pass.name() + ": " + g.size() + " -> " + rewritten.size() + " nodes");
        Random r = new Random(pass.name().hashCode());
        Map<String, Object> data = new HashMap<>();
        for (Value v : g.inputs()) {
            data.put(g.nameOf(v), random(r, v.shape()));
        }
        for (Value v : g.params()) {
            data.put(g.nameOf(v), random(r, v.shape()));
        }
        double[] before = runPlain(g, data);
        double[] after = runPlain(rewritten, data);
        assertClose(before, after, 1e-6, 1e-6, pass.name());
    }

    private static double[] runPlain(Graph g, Map<String, Object> data) {
        try (Session s = new Session(Device.CPU, CompileOptions.defaults().withOptimize(false))) {
            return Runner.runIn(s, g, data).get(0);
        }
    }

    private static float[] random(Random r, Shape s) {
        float[] f = new float[(int) s.elementCount()];
        for (int i = 0; i < f.length; i++) {
            f[i] = (float) (r.nextDouble() - 0.5);
        }
        return f;
    }
}
