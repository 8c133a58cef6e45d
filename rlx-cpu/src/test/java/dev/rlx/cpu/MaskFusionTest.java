package dev.rlx.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.Random;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Compare-and-where fused into mask steps: the fused kernel (generated loop, its tails, and the interpreted form
 * when a step has no vector form) gives the bits of the unfused compare, where and arithmetic kernels, on odd sizes
 * with NaN, infinities and signed zeros among the data, at 1 and 2 threads. (The float64 reference checks of
 * these programs are the testkit's pattern_where* cases.)
 */
class MaskFusionTest {
    private static final Shape X = Shape.of(DType.F32, 5, 67, 131); // 43,885 elements: parallel parts and tails
    private static final Shape ROW = Shape.of(DType.F32, 131);
    private static final Shape COL = Shape.of(DType.F32, 5, 67, 1);

    static Stream<Arguments> patterns() {
        return Stream.<Object[]>of(
                new Object[] {"leakyRelu", (BiFunction<Graph, Value[], Value>) (g, in) ->
                        g.where(g.lt(in[0], g.scalar(0f)), g.mul(in[0], g.scalar(0.01f)), in[0])},
                new Object[] {"elu", (BiFunction<Graph, Value[], Value>) (g, in) ->
                        g.where(g.gt(in[0], g.scalar(0f)), in[0], g.mul(g.scalar(1.7f), g.sub(g.exp(in[0]), g.scalar(1f))))},
                new Object[] {"shrinkNested", (BiFunction<Graph, Value[], Value>) (g, in) ->
                        g.where(g.lt(in[0], g.scalar(-0.5f)), g.add(in[0], g.scalar(0.1f)),
                                g.where(g.gt(in[0], g.scalar(0.5f)), g.sub(in[0], g.scalar(0.1f)), g.scalar(0f)))},
                new Object[] {"isNanToZero", (BiFunction<Graph, Value[], Value>) (g, in) ->
                        g.where(g.ne(in[0], in[0]), g.scalar(0f), g.add(in[0], in[1]))},
                new Object[] {"broadcastRowAndColumn", (BiFunction<Graph, Value[], Value>) (g, in) ->
                        g.where(g.ge(in[0], in[1]), g.mul(in[0], in[2]), g.sub(in[1], in[2]))},
                new Object[] {"equalAndLessEqual", (BiFunction<Graph, Value[], Value>) (g, in) ->
                        g.where(g.eq(g.abs(in[0]), g.scalar(0f)), in[1], g.where(g.le(in[0], in[2]), in[0], in[2]))},
                // sin has no vector form: the program runs interpreted (the mask as 1s and 0s in scratch)
                new Object[] {"interpreted", (BiFunction<Graph, Value[], Value>) (g, in) ->
                        g.where(g.lt(g.sin(in[0]), in[2]), g.mul(in[0], in[1]), g.sin(in[0]))})
                .flatMap(p -> Stream.of(Arguments.of(p[0], p[1], 1), Arguments.of(p[0], p[1], 2)));
    }

    @ParameterizedTest(name = "{0} at {2} thread(s)")
    @MethodSource("patterns")
    void fusedMasks_giveTheBitsOfTheUnfusedKernels(String name, BiFunction<Graph, Value[], Value> body, int threads) {
        Graph g = new Graph(name);
        Value[] in = {g.input("x", X), g.input("row", ROW), g.input("col", COL)};
        g.setOutputs(body.apply(g, in));
        Random r = new Random(name.hashCode());
        float[] x = data(r, (int) X.elementCount());
        float[] row = data(r, (int) ROW.elementCount());
        float[] col = data(r, (int) COL.elementCount());
        float[] fused = run(g, threads, true, x, row, col, true);
        float[] plain = run(g, threads, false, x, row, col, false);
        assertArrayEquals(bits(plain), bits(fused), name + ": fused vs unfused bits");
        assertEquals(bits(fused).length, x.length);
    }

    private static float[] run(Graph g, int threads, boolean optimize, float[] x, float[] row, float[] col,
                               boolean expectMasks) {
        CompileOptions o = CompileOptions.defaults().withThreads(threads).withOptimize(optimize);
        try (Session s = new Session(Device.CPU, o); CompiledGraph c = s.compile(g)) {
            boolean masks = false;
            for (Node n : c.graph().nodes()) {
                masks |= n.op() instanceof Op.Fused f && f.program().hasMasks();
                if (optimize) {
                    assertTrue(!(n.op() instanceof Op.Compare) && !(n.op() instanceof Op.Where),
                            "every compare and where fused: " + c.graph());
                }
            }
            assertEquals(expectMasks, masks, c.graph().toString());
            c.setInput("x", x);
            c.setInput("row", row);
            c.setInput("col", col);
            c.run();
            return c.output(0).toFloatArray();
        }
    }

    /** Uniform in (-2, 2), with NaN, infinities, signed zeros and exact ties with the constants sprinkled in. */
    private static float[] data(Random r, int n) {
        float[] special = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 0f, -0f, 0.5f, -0.5f};
        float[] f = new float[n];
        for (int i = 0; i < n; i++) {
            f[i] = r.nextInt(50) == 0 ? special[r.nextInt(special.length)] : (float) (r.nextDouble() * 4 - 2);
        }
        return f;
    }

    private static int[] bits(float[] f) {
        int[] b = new int[f.length];
        for (int i = 0; i < f.length; i++) {
            b[i] = Float.floatToRawIntBits(f[i]);
        }
        return b;
    }
}
