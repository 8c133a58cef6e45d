package dev.rlx.cpu;

import static dev.rlx.testkit.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.cpu.testing.Runner;
import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.DType;
import dev.rlx.ir.ElementwiseProgram;
import dev.rlx.ir.Graph;
import dev.rlx.ir.HeadLayout;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Shape;
import dev.rlx.ir.UnaryKind;
import dev.rlx.ir.Value;
import dev.rlx.opt.Capabilities;
import dev.rlx.opt.Primitives;
import dev.rlx.opt.decompose.Decompose;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.testkit.reference.ElementRefs;
import dev.rlx.testkit.reference.Ref;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Every composite op and fusion product computes the same on the CPU as its decomposition into primitives:
 * each graph runs as built (the fused kernels) and after {@code new Decompose(Capabilities.primitives())}
 * (compiled without optimisation, so nothing is fused back), on the same random non-zero data.
 *
 * <p>Tolerances. f32: both sides round each step in f32 (the kernels hold some sums, attention's scores and
 * probabilities in double), so results of order 1 differ by a few float roundings: atol 1e-5, rtol 1e-5
 * (the largest difference measured over these cases is 9.5e-7, in log-softmax, fused and add-norm outputs).
 * f64: both compute in double, only the order of sums differs: atol 1e-12, rtol 1e-10. f16 and bf16: both
 * sides compute in f32 or better from the same half inputs and round once at the output (the decomposition
 * runs in F32 between casts), so they differ by at most one unit in the last place of the result, 2^-10
 * (f16) or 2^-7 (bf16) relative, plus f32-level noise near 0 (measured: 7.9e-4 and 4.1e-3 relative, in
 * attention). Where a bound is looser or tighter the test says why. Accuracy against float64 follows from
 * this and the kernels' own tests; the cases where the decomposition's formula differs from the kernel's
 * (GELU_TANH, the shifted mean of the norms) are also checked against float64 here.
 */
class DecompositionEquivalenceTest {
    /** Absolute and relative tolerance of one comparison. */
    private record Tol(double atol, double rtol) {}

    private static final List<DType> FLOATS = List.of(DType.F32, DType.F64, DType.F16, DType.BF16);
    /** The dtypes the CPU's fused element-wise and matmul-epilogue kernels take (f32, and half through f32). */
    private static final List<DType> CPU_FUSED = List.of(DType.F32, DType.F16, DType.BF16);

    private static Tol tol(DType t) {
        return switch (t) {
            case F32 -> new Tol(1e-5, 1e-5);
            case F64 -> new Tol(1e-12, 1e-10);
            case F16 -> new Tol(1e-5, 1e-3);
            case BF16 -> new Tol(1e-5, 8e-3);
            default -> throw new IllegalArgumentException(t.label());
        };
    }

    // ---------------------------------------------------------------- harness

    /** Decomposes {@code g} for the primitives and checks it against {@code g} on {@code data}. */
    private static void check(Graph g, Map<String, Object> data, Tol tol) {
        check(g, data, tol, Capabilities.primitives());
    }

    /**
     * Decomposes {@code g} for {@code target}, checks that something changed and that the target claims every
     * node left, runs both graphs on the CPU without optimisation and compares every output.
     */
    private static void check(Graph g, Map<String, Object> data, Tol tol, Capabilities target) {
        Graph d = new Decompose(target).apply(g);
        assertNotSame(g, d, g.name() + " was not decomposed");
        for (Node n : d.nodes()) {
            assertTrue(target.claims(n), g.name() + ": " + n.describe() + " is still refused");
        }
        try (Session s = new Session(Device.CPU, CompileOptions.defaults().withOptimize(false))) {
            List<double[]> want = Runner.runIn(s, g, data);
            List<double[]> got = Runner.runIn(s, d, data);
            assertEquals(want.size(), got.size());
            for (int i = 0; i < want.size(); i++) {
                assertClose(want.get(i), got.get(i), tol.atol(), tol.rtol(), g.name() + " output " + i);
            }
        }
    }

    /**
     * Random data for every input and param of {@code g} not in {@code fixed}: floats uniform in
     * {@code [lo, hi)} and never 0, BOOL values random.
     */
    private static Map<String, Object> data(Graph g, long seed, double lo, double hi, Map<String, Ref> fixed) {
        Random r = new Random(seed);
        Map<String, Object> m = new HashMap<>(fixed);
        List<Value> sources = new ArrayList<>(g.inputs());
        sources.addAll(g.params());
        for (Value v : sources) {
            String name = g.nameOf(v);
            if (!m.containsKey(name)) {
                int[] dims = v.shape().dims();
                m.put(name, v.dtype() == DType.BOOL ? Ref.randomInts(r, 0, 2, dims) : Ref.random(r, lo, hi, dims));
            }
        }
        return m;
    }

    private static Map<String, Object> data(Graph g, long seed, double lo, double hi) {
        return data(g, seed, lo, hi, Map.of());
    }

    /** {@code op(x)} on one input x. */
    private static Graph single(DType t, String name, int[] dims, UnaryOperator<Value> op) {
        Graph g = new Graph(name + "_" + t.label() + Arrays.toString(dims));
        g.setOutputs(op.apply(g.input("x", Shape.of(t, dims))));
        return g;
    }

    // ---------------------------------------------------------------- softmax family

    @Test
    void softmaxAndLogSoftmax_everyAxis() {
        int[][] shapes = {{3, 5, 7}, {1, 1}, {2, 13}, {1, 31}};
        long seed = 1;
        for (DType t : FLOATS) {
            for (int[] dims : shapes) {
                for (int axis = -1; axis < dims.length; axis++) {
                    int a = axis;
                    Graph sm = single(t, "softmax" + a, dims, x -> x.graph().softmax(x, a));
                    check(sm, data(sm, seed++, -8, 8), tol(t));
                    Graph lsm = single(t, "log_softmax" + a, dims, x -> x.graph().logSoftmax(x, a));
                    check(lsm, data(lsm, seed++, -8, 8), tol(t));
                }
            }
        }
    }

    @Test
    void softmax_largeScores_areMaxShifted() {
        // exp(80..100) overflows f32: only the max-subtracted form gives finite probabilities
        int[] dims = {4, 9};
        Graph sm = single(DType.F32, "softmax_large", dims, x -> x.graph().softmax(x, 1));
        check(sm, data(sm, 2, 80, 100), tol(DType.F32));
        Graph lsm = single(DType.F32, "log_softmax_large", dims, x -> x.graph().logSoftmax(x, 1));
        check(lsm, data(lsm, 3, 80, 100), tol(DType.F32));
    }

    // ---------------------------------------------------------------- norms

    @Test
    void layerAndRmsNorm_everyAxis_withAndWithoutBeta() {
        long seed = 10;
        int[][] shapes = {{2, 3, 5}, {3, 17}, {1, 1, 7}};
        for (DType t : FLOATS) {
            for (int[] dims : shapes) {
                for (int axis = 0; axis < dims.length; axis++) {
                    for (boolean beta : new boolean[] {false, true}) {
                        for (boolean rms : new boolean[] {false, true}) {
                            Graph g = norm(t, dims, axis, beta, rms);
                            check(g, data(g, seed++, -2, 2), tol(t));
                        }
                    }
                }
            }
        }
    }

    /**
     * Rows of 1000 values in [99, 101]: the one-pass variance would cancel every digit, and a mean summed
     * unshifted loses enough for 4.4e-5 error; the decomposition (shifted by each row's first element)
     * measures 6.4e-7 against float64. The CPU kernel rounds its mean of ~100 to f32 (up to 3.8e-6, times
     * rstd * gamma ~ 3.5, 1.3e-5 measured), so the two sides differ by up to that.
     */
    @Test
    void layerNorm_rowsFarFromZero_twoPassShiftedVariance() {
        int rows = 8;
        int len = 1000;
        Graph g = norm(DType.F32, new int[] {rows, len}, 1, true, false);
        Map<String, Object> d = data(g, 20, -2, 2);
        Ref x = Ref.random(new Random(21), 99, 101, rows, len);
        d.put("x", x);
        check(g, d, new Tol(5e-5, 1e-5));

        double[] y = Runner.run(new Decompose(Capabilities.primitives()).apply(g), d).get(0);
        double[] gamma = ((Ref) d.get("gamma")).data();
        double[] beta = ((Ref) d.get("beta")).data();
        double worst = 0;
        for (int r = 0; r < rows; r++) {
            double mean = 0;
            for (int j = 0; j < len; j++) {
                mean += x.data()[r * len + j] / len;
            }
            double var = 0;
            for (int j = 0; j < len; j++) {
                double dev = x.data()[r * len + j] - mean;
                var += dev * dev / len;
            }
            for (int j = 0; j < len; j++) {
                double want = (x.data()[r * len + j] - mean) / Math.sqrt(var + 1e-5f) * gamma[j] + beta[j];
                worst = Math.max(worst, Math.abs(y[r * len + j] - want));
            }
        }
        assertTrue(worst <= 2e-6, "max error against float64 " + worst);
    }

    private static Graph norm(DType t, int[] dims, int axis, boolean withBeta, boolean rms) {
        Graph g = new Graph((rms ? "rms_norm" : "layer_norm") + axis + (withBeta ? "_beta_" : "_") + t.label()
                + Arrays.toString(dims));
        Value x = g.input("x", Shape.of(t, dims));
        Shape p = Shape.of(t, Arrays.copyOfRange(dims, axis, dims.length));
        Value gamma = g.param("gamma", p);
        Value beta = withBeta ? g.param("beta", p) : null;
        g.setOutputs(rms ? g.rmsNorm(x, gamma, beta, axis, 1e-5f) : g.layerNorm(x, gamma, beta, axis, 1e-5f));
        return g;
    }

    @Test
    void groupNorm_groupsAndRanks() {
        long seed = 30;
        Object[][] cases = {{3, new int[] {2, 6}}, {2, new int[] {2, 6, 5}}, {1, new int[] {1, 4, 3, 5}},
                {5, new int[] {3, 5, 7}}, {2, new int[] {2, 4, 1, 3, 2}}};
        for (DType t : FLOATS) {
            for (Object[] c : cases) {
                int groups = (int) c[0];
                int[] dims = (int[]) c[1];
                Graph g = new Graph("group_norm" + groups + "_" + t.label() + Arrays.toString(dims));
                Value x = g.input("x", Shape.of(t, dims));
                Value gamma = g.param("gamma", Shape.of(t, dims[1]));
                Value beta = g.param("beta", Shape.of(t, dims[1]));
                g.setOutputs(g.groupNorm(x, gamma, beta, groups, 1e-3f));
                check(g, data(g, seed++, -3, 3), tol(t));
            }
        }
    }

    // ---------------------------------------------------------------- activations

    private static final List<UnaryKind> ACTIVATIONS =
            List.of(UnaryKind.GELU, UnaryKind.GELU_TANH, UnaryKind.SILU, UnaryKind.SIGMOID);

    @Test
    void activations_randomData() {
        long seed = 40;
        for (DType t : FLOATS) {
            for (UnaryKind k : ACTIVATIONS) {
                Graph g = single(t, k.label(), new int[] {3, 37}, x -> x.graph().unary(k, x));
                check(g, data(g, seed++, -12, 12), tol(t));
            }
        }
    }

    @Test
    void activations_extremeInputs_matchWithoutNaN() {
        double[] xs = {-1e30, -1e4, -200, -100, -89, -87, -30, -16, -9, -5, -3, -1e-3, 1e-30, 1e-3, 3, 5, 9, 16, 30, 87,
                89, 100, 200, 1e4, 1e30};
        Ref x = new Ref(new int[] {xs.length}, xs.clone());
        for (DType t : List.of(DType.F32, DType.F64)) {
            for (UnaryKind k : ACTIVATIONS) {
                Graph g = single(t, k.label() + "_extreme", new int[] {xs.length}, v -> v.graph().unary(k, v));
                check(g, Map.of("x", x), tol(t));
                double[] out = Runner.run(new Decompose(Capabilities.primitives()).apply(g), Map.of("x", x)).get(0);
                for (int i = 0; i < out.length; i++) {
                    assertFalse(Double.isNaN(out[i]), k.label() + "(" + xs[i] + ") is NaN");
                }
            }
        }
    }

    /**
     * The decompositions against float64 on every 1000th of [-20, 20], with bounds about twice the measured
     * worst error. The CPU kernels measure the same except GELU_TANH, whose {@code 1 + tanh(u)} cancels for x
     * below -3 (relative error up to 100%, absolute 7.7e-8) where the decomposition's sigmoid form keeps
     * 1.0e-5 relative (exp's argument, about 2u = -80 at the worst, carries its own rounding times 80).
     * GELU's {@code 1 + erf} cancels the same way in both (100% relative below -3, absolute under 2.6e-7):
     * there is no erfc primitive.
     */
    @Test
    void activations_againstFloat64_onADenseGrid() {
        int n = 40001;
        double[] xs = new double[n];
        for (int i = 0; i < n; i++) {
            xs[i] = (float) (-20 + 40.0 * i / (n - 1));
        }
        Ref x = new Ref(new int[] {n}, xs);
        for (UnaryKind k : ACTIVATIONS) {
            Graph g = new Decompose(Capabilities.primitives())
                    .apply(single(DType.F32, k.label(), new int[] {n}, v -> v.graph().unary(k, v)));
            double[] y = Runner.run(g, Map.of("x", x)).get(0);
            double worstAbs = 0;
            double worstRel = 0;
            for (int i = 0; i < n; i++) {
                double ref = activationReference(k, xs[i]);
                double err = Math.abs(y[i] - ref);
                worstAbs = Math.max(worstAbs, err);
                worstRel = Math.max(worstRel, Math.abs(ref) > 1e-30 ? err / Math.abs(ref) : 0);
            }
            switch (k) {
                case GELU -> assertTrue(worstAbs <= 1e-6, "gelu abs error " + worstAbs); // measured 4.6e-7
                case GELU_TANH -> assertTrue(worstRel <= 2e-5 && worstAbs <= 1e-6, // measured 1.0e-5 and 5.1e-7
                        "gelu_tanh relative error " + worstRel + ", abs " + worstAbs);
                default -> assertTrue(worstRel <= 3e-7, k.label() + " relative error " + worstRel); // measured 1.6e-7
            }
        }
    }

    /** Float64 activations; gelu_tanh as {@code x sigmoid(2u)}, which has no cancellation in double either. */
    private static double activationReference(UnaryKind k, double x) {
        return switch (k) {
            case GELU -> 0.5 * x * (1 + ElementRefs.erf(x / Math.sqrt(2)));
            case GELU_TANH -> x / (1 + Math.exp(-2 * Math.sqrt(2 / Math.PI) * (x + 0.044715 * x * x * x)));
            case SILU -> x / (1 + Math.exp(-x));
            case SIGMOID -> 1 / (1 + Math.exp(-x));
            default -> throw new IllegalArgumentException(k.label());
        };
    }

    // ---------------------------------------------------------------- attention

    /** One attention graph: B = 2, q/k/v in the spec's layout, an optional mask input of {@code maskDims}. */
    private static Graph attention(DType t, Op.Attention a, boolean rank3, int sq, int sk, DType maskType,
                                   int... maskDims) {
        Graph g = new Graph("attention_" + a.layout() + (rank3 ? "3_" : "4_") + a.mask() + "_h" + a.numHeads() + "kv"
                + a.numKvHeads() + "_" + sq + "x" + sk + (a.softcap() > 0 ? "_softcap" : "")
                + (maskType == null ? "" : "_mask" + maskType.label() + Arrays.toString(maskDims)) + "_" + t.label());
        Value q = g.input("q", heads(t, a.layout(), rank3, 2, sq, a.numHeads(), a.headDim()));
        Value k = g.input("k", heads(t, a.layout(), rank3, 2, sk, a.numKvHeads(), a.headDim()));
        Value v = g.input("v", heads(t, a.layout(), rank3, 2, sk, a.numKvHeads(), a.headDim()));
        Value m = maskType == null ? null : g.input("mask", Shape.of(maskType, maskDims));
        g.setOutputs(g.attention(q, k, v, m, a));
        return g;
    }

    private static Shape heads(DType t, HeadLayout layout, boolean rank3, int b, int s, int h, int d) {
        if (layout == HeadLayout.BHSD) {
            return Shape.of(t, b, h, s, d);
        }
        return rank3 ? Shape.of(t, b, s, h * d) : Shape.of(t, b, s, h, d);
    }

    @Test
    void attention_everyLayoutAndMaskKind() {
        long seed = 50;
        for (DType t : FLOATS) {
            for (HeadLayout layout : HeadLayout.values()) {
                for (boolean rank3 : layout == HeadLayout.BSHD ? new boolean[] {true, false} : new boolean[] {false}) {
                    Op.Attention gqa = Op.Attention.of(4, 2, 3).withLayout(layout);
                    List<Graph> gs = List.of(
                            attention(t, gqa, rank3, 5, 7, null),
                            attention(t, gqa.causal(), rank3, 5, 7, null),
                            attention(t, gqa.causal(), rank3, 7, 5, null), // Sq > Sk: the first two rows see nothing
                            attention(t, gqa.slidingWindow(2), rank3, 6, 6, null),
                            attention(t, gqa.slidingWindow(3).withScale(0.3f).withSoftcap(2f), rank3, 4, 9, null),
                            attention(t, Op.Attention.of(3, 1, 5).withLayout(layout).causal(), rank3, 1, 9, null),
                            attention(t, gqa, rank3, 5, 7, t, 2, 1, 5, 7),
                            attention(t, gqa.causal(), rank3, 5, 7, t, 7),
                            attention(t, gqa, rank3, 5, 7, DType.BOOL, 5, 7),
                            attention(t, gqa.causal(), rank3, 5, 7, DType.BOOL, 1, 4, 1, 7));
                    for (Graph g : gs) {
                        check(g, data(g, seed++, -2, 2), tol(t));
                    }
                }
            }
        }
    }

    @Test
    void attention_fullyMaskedRows_areZeros() {
        int sq = 4;
        int sk = 5;
        // keep-mask: query row 1 sees nothing, row 2 only key 4; additive mask: row 3 all -inf
        double[] keep = new double[sq * sk];
        Arrays.fill(keep, 1);
        Arrays.fill(keep, sk, 2 * sk, 0);
        Arrays.fill(keep, 2 * sk, 3 * sk - 1, 0);
        double[] add = Ref.random(new Random(60), -1, 1, sq, sk).data();
        Arrays.fill(add, 3 * sk, 4 * sk, Double.NEGATIVE_INFINITY);
        for (DType t : FLOATS) {
            Op.Attention a = Op.Attention.of(2, 1, 4);
            Graph kept = attention(t, a, false, sq, sk, DType.BOOL, sq, sk);
            Map<String, Object> keptData = data(kept, 61, -2, 2, Map.of("mask", new Ref(new int[] {sq, sk}, keep)));
            check(kept, keptData, tol(t));
            assertZeroRow(Runner.run(new Decompose(Capabilities.primitives()).apply(kept), keptData).get(0), sq, 1);
            Graph added = attention(t, a.causal(), false, sq, sk, t, sq, sk);
            Map<String, Object> addedData = data(added, 62, -2, 2, Map.of("mask", new Ref(new int[] {sq, sk}, add)));
            check(added, addedData, tol(t));
            assertZeroRow(Runner.run(new Decompose(Capabilities.primitives()).apply(added), addedData).get(0), sq, 3);
        }
    }

    /** Query row {@code row} of every batch and head of a {@code [2, sq, 2, 4]} attention result is exactly 0. */
    private static void assertZeroRow(double[] out, int sq, int row) {
        for (int b = 0; b < 2; b++) {
            for (int i = 0; i < 2 * 4; i++) {
                assertEquals(0.0, out[(b * sq + row) * 2 * 4 + i], "fully masked row " + row + " gives zeros");
            }
        }
    }

    @Test
    void attention_softcapDrivesScoresIntoTanh() {
        Op.Attention a = Op.Attention.of(2, 2, 8).withSoftcap(1.5f).causal();
        Graph g = attention(DType.F32, a, false, 6, 6, null);
        check(g, data(g, 70, -3, 3), tol(DType.F32));
    }

    // ---------------------------------------------------------------- rope

    @Test
    void rope_everyLayoutPairingAndTable() {
        long seed = 80;
        for (DType t : FLOATS) {
            for (HeadLayout layout : HeadLayout.values()) {
                for (boolean rank3 : layout == HeadLayout.BSHD ? new boolean[] {true, false} : new boolean[] {false}) {
                    for (boolean interleaved : new boolean[] {false, true}) {
                        for (int rot : new int[] {10, 4, 2}) {
                            for (int tableRank : new int[] {2, 3}) {
                                Graph g = rope(t, new Op.Rope(10, rot, interleaved, layout), rank3, tableRank);
                                check(g, data(g, seed++, -2, 2), tol(t));
                            }
                        }
                    }
                }
            }
        }
    }

    private static Graph rope(DType t, Op.Rope spec, boolean rank3, int tableRank) {
        int b = 2;
        int s = 5;
        int h = 3;
        Graph g = new Graph("rope_" + spec.layout() + (rank3 ? "3" : "4") + (spec.interleaved() ? "_interleaved" : "")
                + "_rot" + spec.rotaryDim() + "_table" + tableRank + "_" + t.label());
        Value x = g.input("x", heads(t, spec.layout(), rank3, b, s, h, spec.headDim()));
        Shape table = tableRank == 2 ? Shape.of(t, s, spec.rotaryDim() / 2) : Shape.of(t, b, s, spec.rotaryDim() / 2);
        g.setOutputs(g.rope(x, g.input("cos", table), g.input("sin", table), spec));
        return g;
    }

    // ---------------------------------------------------------------- fusion products

    @Test
    void fused_programWithBroadcastSharedAndUnusedValues() {
        // gelu(x * y + z) * x with exp(x) unused: operands broadcast [3,1,5], [4,5], [5]
        ElementwiseProgram p = ElementwiseProgram.builder(3).binary(BinaryKind.MUL, 0, 1).unary(UnaryKind.EXP, 0)
                .binary(BinaryKind.ADD, 3, 2).unary(UnaryKind.GELU, 5).binary(BinaryKind.MUL, 6, 0).build();
        ElementwiseProgram narrow = ElementwiseProgram.builder(2).unary(UnaryKind.SIGMOID, 0).build();
        long seed = 90;
        for (DType t : CPU_FUSED) {
            Graph g = new Graph("fused_" + t.label());
            Value x = g.input("x", Shape.of(t, 3, 1, 5));
            Value y = g.input("y", Shape.of(t, 4, 5));
            Value z = g.input("z", Shape.of(t, 5));
            g.setOutputs(g.apply1(new Op.Fused(p), x, y, z), g.apply1(new Op.Fused(narrow), z, y));
            check(g, data(g, seed++, -3, 3), tol(t));
        }
    }

    @Test
    void fusedMatMul_everyTransposeWithBiasActivationAndResidual() {
        // silu(a @ b + bias) + residual
        ElementwiseProgram epi = ElementwiseProgram.builder(3).binary(BinaryKind.ADD, 0, 1).unary(UnaryKind.SILU, 3)
                .binary(BinaryKind.ADD, 4, 2).build();
        long seed = 100;
        for (DType t : CPU_FUSED) {
            for (boolean ta : new boolean[] {false, true}) {
                for (boolean tb : new boolean[] {false, true}) {
                    Graph g = new Graph("fused_matmul" + (ta ? "_tA" : "") + (tb ? "_tB" : "") + "_" + t.label());
                    Value a = g.input("a", ta ? Shape.of(t, 2, 7, 3) : Shape.of(t, 2, 3, 7));
                    Value b = g.param("b", tb ? Shape.of(t, 5, 7) : Shape.of(t, 7, 5));
                    Value bias = g.param("bias", Shape.of(t, 5));
                    Value res = g.input("residual", Shape.of(t, 3, 5));
                    g.setOutputs(g.apply1(new Op.FusedMatMul(epi, ta, tb), a, b, bias, res));
                    check(g, data(g, seed++, -1, 1), tol(t));
                }
            }
        }
    }

    @Test
    void addNorm_bothOutputs_everyNormAndAxis() {
        long seed = 110;
        int[] dims = {2, 3, 5};
        for (DType t : FLOATS) {
            for (boolean rms : new boolean[] {false, true}) {
                for (int axis = 0; axis < 3; axis++) {
                    for (boolean withBeta : new boolean[] {false, true}) {
                        Graph g = new Graph("add_norm" + (rms ? "_rms" : "_layer") + axis + (withBeta ? "_beta_" : "_")
                                + t.label());
                        Value x = g.input("x", Shape.of(t, dims));
                        Value res = g.input("residual", Shape.of(t, dims));
                        Shape p = Shape.of(t, Arrays.copyOfRange(dims, axis, 3));
                        List<Value> in = new ArrayList<>(List.of(x, res, g.param("gamma", p)));
                        if (withBeta) {
                            in.add(g.param("beta", p));
                        }
                        g.setOutputs(g.apply(new Op.AddNorm(rms, axis, 1e-5f), in));
                        check(g, data(g, seed++, -2, 2), tol(t));
                    }
                }
            }
        }
    }

    // ---------------------------------------------------------------- matmul forms and the half fallback

    @Test
    void transposedMatMul_onAPlainMatMulTarget() {
        Capabilities plainOnly = Capabilities.builder().claimPrimitives().refuse(OpKind.MATMUL, "plain matmul only",
                (op, in) -> op instanceof Op.MatMul m && (m.transA() || m.transB()) ? "no transposed matmul" : null)
                .build();
        long seed = 120;
        for (DType t : FLOATS) {
            for (boolean ta : new boolean[] {false, true}) {
                for (boolean tb : new boolean[] {false, true}) {
                    if (!ta && !tb) {
                        continue;
                    }
                    Graph g = new Graph("matmul" + (ta ? "_tA" : "") + (tb ? "_tB" : "") + "_" + t.label());
                    Value a = g.input("a", ta ? Shape.of(t, 2, 1, 7, 3) : Shape.of(t, 2, 1, 3, 7));
                    Value b = g.input("b", tb ? Shape.of(t, 4, 5, 7) : Shape.of(t, 4, 7, 5));
                    g.setOutputs(g.apply1(new Op.MatMul(ta, tb), a, b));
                    check(g, data(g, seed++, -1, 1), tol(t), plainOnly);
                }
            }
        }
    }

    @Test
    void halfFallback_equalsTheCpusHalfKernels() {
        // The CPU runs half tensors through its f32 kernels with one rounding at the output: what the fallback
        // writes out as casts, so the results are bit for bit equal.
        long seed = 130;
        for (DType half : List.of(DType.F16, DType.BF16)) {
            Graph mm = new Graph("matmul_" + half.label());
            mm.setOutputs(mm.matmul(mm.input("a", Shape.of(half, 3, 17)), mm.param("b", Shape.of(half, 17, 5))));
            check(mm, data(mm, seed++, -2, 2), new Tol(0, 0), primitivesWith(OpKind.MATMUL, DType.F32));
            Graph sm = single(half, "softmax", new int[] {3, 11}, x -> x.graph().softmax(x, 1));
            Capabilities f32Softmax = Capabilities.builder().claimPrimitives().claim(OpKind.SOFTMAX, DType.F32).build();
            check(sm, data(sm, seed++, -4, 4), new Tol(0, 0), f32Softmax);
        }
    }

    /** Claims the primitives, {@code kind} only for {@code dtype}. */
    private static Capabilities primitivesWith(OpKind kind, DType dtype) {
        Capabilities.Builder b = Capabilities.builder();
        for (OpKind k : Primitives.KINDS) {
            if (k != kind) {
                b.claim(k);
            }
        }
        return b.claim(kind, dtype).build();
    }
}
