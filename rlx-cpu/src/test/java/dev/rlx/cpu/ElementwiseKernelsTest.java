package dev.rlx.cpu;

import static dev.rlx.testkit.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rlx.testkit.reference.ElementRefs;
import dev.rlx.testkit.reference.Ref;
import dev.rlx.cpu.testing.Runner;
import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.CompareKind;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.HalfFloats;
import dev.rlx.ir.Shape;
import dev.rlx.ir.UnaryKind;
import dev.rlx.ir.Value;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.DoubleBinaryOperator;
import java.util.function.DoubleUnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Element-wise kernels against float64 references written here with java.lang.Math (erf by numerical
 * integration), on random data that is never zero.
 */
class ElementwiseKernelsTest {
    /** Enough elements for several vector chunks, a ragged tail and the parallel split (2 threads here). */
    private static final int LARGE = 70_001;

    static double[] apply(DoubleUnaryOperator f, Ref x) {
        return x.map(f).data();
    }

    static Graph unaryGraph(UnaryKind k, Shape s) {
        Graph g = new Graph("unary");
        Value x = g.input("x", s);
        g.setOutputs(g.unary(k, x));
        return g;
    }

    // ---------------------------------------------------------------- unary

    static Stream<UnaryKind> floatKinds() {
        return Stream.of(UnaryKind.values()).filter(k -> k.accepts(DType.F32));
    }

    /** f32: SVML-backed vector functions are within a few ulp; erf (A&S 7.1.26) within 1.5e-7 absolute. */
    @ParameterizedTest
    @MethodSource("floatKinds")
    void unary_f32_matchesReference(UnaryKind k) {
        Random r = new Random(k.ordinal());
        Ref x = ElementRefs.inputs(k, r, LARGE);
        double[] out = Runner.run(unaryGraph(k, Shape.of(DType.F32, LARGE)), Map.of("x", x)).get(0);
        double[] expected = apply(ElementRefs.ref(k), x);
        double atol = k == UnaryKind.GELU || k == UnaryKind.ERF ? 5e-7 : 1e-6;
        assertClose(expected, out, atol, 2e-6, k + " f32");
    }

    /** f64 runs the double-precision definitions: erf to 1e-15, the rest java.lang.Math exactly. */
    @ParameterizedTest
    @MethodSource("floatKinds")
    void unary_f64_matchesReference(UnaryKind k) {
        Random r = new Random(100 + k.ordinal());
        Ref x = ElementRefs.inputs(k, r, 3, 333);
        Graph g = unaryGraph(k, Shape.of(DType.F64, 3, 333));
        double[] out = Runner.run(g, Map.of("x", x.data())).get(0);
        assertClose(apply(ElementRefs.ref(k), x), out, 1e-12, 1e-12, k + " f64");
    }

    @Test
    void unary_f16AndBf16_computeInFloatAndRoundOnce() {
        for (DType t : List.of(DType.F16, DType.BF16)) {
            Random r = new Random(7);
            Ref x = Ref.random(r, -3, 3, 257);
            double[] out = Runner.run(unaryGraph(UnaryKind.SILU, Shape.of(t, 257)), Map.of("x", x.floats())).get(0);
            double[] expected = new double[x.size()];
            for (int i = 0; i < expected.length; i++) {
                float in = round(t, (float) x.data()[i]); // the input is stored in the half type first
                expected[i] = round(t, (float) (in / (1 + Math.exp(-in))));
            }
            assertClose(expected, out, 0, t == DType.F16 ? 1e-3 : 8e-3, "silu " + t);
        }
    }

    static float round(DType t, float v) {
        return t == DType.F16 ? HalfFloats.f16ToFloat(HalfFloats.toF16(v)) : HalfFloats.bf16ToFloat(HalfFloats.toBF16(v));
    }

    @Test
    void round_halvesGoToEven() {
        Graph g = unaryGraph(UnaryKind.ROUND, Shape.of(DType.F32, 8));
        double[] out = Runner.run(g, Map.of("x", new float[] {0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.5f, 2.4f, -3.6f})).get(0);
        assertArrayEquals(new double[] {0, -0.0, 2, -2, 2, -2, 2, -4}, out);
    }

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"I32", "I64", "I8"})
    void unary_integers_wrapLikeJava(DType t) {
        long[] x = {-7, 0, 5, t == DType.I8 ? Byte.MIN_VALUE : t == DType.I32 ? Integer.MIN_VALUE : Long.MIN_VALUE, 3};
        for (UnaryKind k : List.of(UnaryKind.NEG, UnaryKind.ABS, UnaryKind.SIGN, UnaryKind.RELU)) {
            double[] out = Runner.run(unaryGraph(k, Shape.of(t, 5)), Map.of("x", x)).get(0);
            for (int i = 0; i < x.length; i++) {
                long v = x[i];
                long e = switch (k) {
                    case NEG -> -v;
                    case ABS -> Math.abs(v);
                    case SIGN -> Long.signum(v);
                    default -> Math.max(v, 0);
                };
                e = t == DType.I8 ? (byte) e : t == DType.I32 ? (int) e : e; // wrap to the width
                assertEquals((double) e, out[i], k + " " + t + " of " + v);
            }
        }
    }

    @Test
    void not_flipsBooleans() {
        Graph g = unaryGraph(UnaryKind.NOT, Shape.of(DType.BOOL, 4));
        assertArrayEquals(new double[] {0, 1, 1, 0},
                Runner.run(g, Map.of("x", new boolean[] {true, false, false, true})).get(0));
    }

    // ---------------------------------------------------------------- binary

    /** Operand dims pairs covering every broadcasting case the walk distinguishes. */
    static Stream<Arguments> broadcastCases() {
        return Stream.of(
                Arguments.of(new int[] {5, 37}, new int[] {5, 37}),       // same shape: one flat row
                Arguments.of(new int[] {}, new int[] {4, 33}),            // scalar left
                Arguments.of(new int[] {4, 33}, new int[] {1}),           // scalar right, rank padding
                Arguments.of(new int[] {6, 35}, new int[] {35}),          // row (bias) broadcast
                Arguments.of(new int[] {6, 35}, new int[] {6, 1}),        // column broadcast
                Arguments.of(new int[] {7, 1}, new int[] {1, 19}),        // both directions
                Arguments.of(new int[] {3, 1, 5}, new int[] {4, 1}),      // rank 3 x rank 2, outer product-ish
                Arguments.of(new int[] {2, 3, 1, 4}, new int[] {3, 5, 1}),
                Arguments.of(new int[] {0, 4}, new int[] {4}),            // empty
                Arguments.of(new int[] {1, 1}, new int[] {1}),            // all ones
                Arguments.of(new int[] {300, 257}, new int[] {300, 1}));  // large: parallel, ragged vector tail
    }

    static int[] broadcastDims(int[] a, int[] b) {
        int r = Math.max(a.length, b.length);
        int[] out = new int[r];
        for (int i = 0; i < r; i++) {
            int x = i - (r - a.length) >= 0 ? a[i - (r - a.length)] : 1;
            int y = i - (r - b.length) >= 0 ? b[i - (r - b.length)] : 1;
            out[i] = Math.max(x, y) == 1 ? Math.min(x, y) : Math.max(x, y);
        }
        return out;
    }

    static double[] binaryRef(Ref a, Ref b, int[] out, DoubleBinaryOperator f) {
        Ref o = Ref.zeros(out);
        for (int i = 0; i < o.size(); i++) {
            int[] idx = o.unravel(i);
            o.data()[i] = f.applyAsDouble(a.atBroadcast(idx), b.atBroadcast(idx));
        }
        return o.data();
    }

    static Graph binaryGraph(BinaryKind k, Shape a, Shape b) {
        Graph g = new Graph("binary");
        g.setOutputs(g.binary(k, g.input("a", a), g.input("b", b)));
        return g;
    }

    @ParameterizedTest
    @MethodSource("broadcastCases")
    void binary_f32_broadcasting(int[] ad, int[] bd) {
        Random r = new Random(ad.length * 31L + bd.length);
        for (BinaryKind k : BinaryKind.values()) {
            if (!k.accepts(DType.F32)) {
                continue;
            }
            Ref a = k == BinaryKind.POW ? Ref.random(r, 0.1, 3, ad) : Ref.random(r, -5, 5, ad);
            Ref b = k == BinaryKind.POW ? Ref.random(r, -2, 2, bd) : Ref.random(r, -5, 5, bd);
            double[] out = Runner.run(binaryGraph(k, Shape.of(DType.F32, ad), Shape.of(DType.F32, bd)),
                    Map.of("a", a, "b", b)).get(0);
            // Results are the float rounding of the exact op, except pow (SVML, ~1 ulp) and mod (fmod then adjust).
            assertClose(binaryRef(a, b, broadcastDims(ad, bd), ElementRefs.ref(k)), out, 1e-6, 2e-6, k + " f32");
        }
    }

    @ParameterizedTest
    @MethodSource("broadcastCases")
    void binary_f64_broadcasting(int[] ad, int[] bd) {
        Random r = new Random(7 + ad.length);
        for (BinaryKind k : List.of(BinaryKind.ADD, BinaryKind.SUB, BinaryKind.MUL, BinaryKind.DIV, BinaryKind.MAX,
                BinaryKind.MIN, BinaryKind.MOD)) {
            Ref a = Ref.random(r, -5, 5, ad);
            Ref b = Ref.random(r, -5, 5, bd);
            double[] out = Runner.run(binaryGraph(k, Shape.of(DType.F64, ad), Shape.of(DType.F64, bd)),
                    Map.of("a", a.data(), "b", b.data())).get(0);
            assertClose(binaryRef(a, b, broadcastDims(ad, bd), ElementRefs.ref(k)), out, 1e-12, 1e-12, k + " f64");
        }
    }

    @Test
    void binary_integers_truncatingDivFlooredModZeroDivisor() {
        long[] a = {7, -7, 7, -7, 5, Long.MAX_VALUE, 9};
        long[] b = {2, 2, -2, -2, 0, 1, 3};
        Graph g = binaryGraph(BinaryKind.DIV, Shape.of(DType.I64, 7), Shape.of(DType.I64, 7));
        assertArrayEquals(new double[] {3, -3, -3, 3, 0, Long.MAX_VALUE, 3}, Runner.run(g, Map.of("a", a, "b", b)).get(0));
        g = binaryGraph(BinaryKind.MOD, Shape.of(DType.I64, 7), Shape.of(DType.I64, 7));
        assertArrayEquals(new double[] {1, 1, -1, -1, 0, 0, 0}, Runner.run(g, Map.of("a", a, "b", b)).get(0));
        // i32 addition wraps at 32 bits
        g = binaryGraph(BinaryKind.ADD, Shape.of(DType.I32, 2), Shape.of(DType.I32));
        assertArrayEquals(new double[] {Integer.MIN_VALUE, 1},
                Runner.run(g, Map.of("a", new int[] {Integer.MAX_VALUE, 0}, "b", new int[] {1})).get(0));
    }

    @Test
    void binary_bool_logic() {
        boolean[] a = {true, true, false, false};
        boolean[] b = {true, false, true, false};
        for (BinaryKind k : List.of(BinaryKind.AND, BinaryKind.OR, BinaryKind.XOR)) {
            double[] out = Runner.run(binaryGraph(k, Shape.of(DType.BOOL, 4), Shape.of(DType.BOOL, 4)),
                    Map.of("a", a, "b", b)).get(0);
            for (int i = 0; i < 4; i++) {
                assertEquals(ElementRefs.ref(k).applyAsDouble(a[i] ? 1 : 0, b[i] ? 1 : 0), out[i], k + " at " + i);
            }
        }
    }

    @Test
    void maxMin_propagateNaN() {
        float[] a = {Float.NaN, 1, 2, Float.NaN};
        float[] b = {1, Float.NaN, 3, Float.NaN};
        for (BinaryKind k : List.of(BinaryKind.MAX, BinaryKind.MIN)) {
            // 19 elements so the vector loop (not only the tail) sees NaN
            float[] aa = new float[19];
            float[] bb = new float[19];
            for (int i = 0; i < 19; i++) {
                aa[i] = a[i % 4];
                bb[i] = b[i % 4];
            }
            double[] out = Runner.run(binaryGraph(k, Shape.of(DType.F32, 19), Shape.of(DType.F32, 19)),
                    Map.of("a", aa, "b", bb)).get(0);
            for (int i = 0; i < 19; i++) {
                boolean nan = Float.isNaN(aa[i]) || Float.isNaN(bb[i]);
                assertEquals(nan, Double.isNaN(out[i]), k + " at " + i);
            }
        }
    }

    // ---------------------------------------------------------------- compare, where, cast

    @ParameterizedTest
    @MethodSource("broadcastCases")
    void compare_f32AndI64_broadcastToBool(int[] ad, int[] bd) {
        Random r = new Random(3);
        for (CompareKind k : CompareKind.values()) {
            Ref a = Ref.randomInts(r, -3, 3, ad);
            Ref b = Ref.randomInts(r, -3, 3, bd); // small integers make equality common
            DoubleBinaryOperator f = (x, y) -> switch (k) {
                case EQ -> x == y ? 1 : 0;
                case NE -> x != y ? 1 : 0;
                case LT -> x < y ? 1 : 0;
                case LE -> x <= y ? 1 : 0;
                case GT -> x > y ? 1 : 0;
                case GE -> x >= y ? 1 : 0;
            };
            double[] expected = binaryRef(a, b, broadcastDims(ad, bd), f);
            for (DType t : List.of(DType.F32, DType.I64)) {
                Graph g = new Graph("cmp");
                g.setOutputs(g.compare(k, g.input("a", Shape.of(t, ad)), g.input("b", Shape.of(t, bd))));
                assertArrayEquals(expected, Runner.run(g, Map.of("a", a, "b", b)).get(0), k + " " + t);
            }
        }
    }

    @Test
    void compare_nanIsUnordered() {
        Graph g = new Graph("cmp");
        Value a = g.input("a", Shape.of(DType.F32, 2));
        Value b = g.input("b", Shape.of(DType.F32, 2));
        g.setOutputs(g.eq(a, b), g.ne(a, b), g.lt(a, b), g.ge(a, b));
        List<double[]> out = Runner.run(g, Map.of("a", new float[] {Float.NaN, 1}, "b", new float[] {Float.NaN, 1}));
        assertArrayEquals(new double[] {0, 1}, out.get(0));
        assertArrayEquals(new double[] {1, 0}, out.get(1));
        assertArrayEquals(new double[] {0, 0}, out.get(2));
        assertArrayEquals(new double[] {0, 1}, out.get(3));
    }

    @Test
    void where_broadcastsAllThree() {
        Random r = new Random(11);
        int[] cd = {4, 1, 6};
        int[] ad = {5, 1};
        int[] bd = {6};
        Ref c = Ref.randomInts(r, 0, 2, cd);
        for (DType t : List.of(DType.F32, DType.I64, DType.F16)) {
            Ref a = t == DType.I64 ? Ref.randomInts(r, -100, 100, ad) : Ref.random(r, -4, 4, ad).map(x -> round(DType.F16, (float) x));
            Ref b = t == DType.I64 ? Ref.randomInts(r, -100, 100, bd) : Ref.random(r, -4, 4, bd).map(x -> round(DType.F16, (float) x));
            Graph g = new Graph("where");
            g.setOutputs(g.where(g.input("c", Shape.of(DType.BOOL, cd)), g.input("a", Shape.of(t, ad)),
                    g.input("b", Shape.of(t, bd))));
            double[] out = Runner.run(g, Map.of("c", c, "a", a, "b", b)).get(0);
            Ref o = Ref.zeros(4, 5, 6);
            for (int i = 0; i < o.size(); i++) {
                int[] idx = o.unravel(i);
                o.data()[i] = c.atBroadcast(idx) != 0 ? a.atBroadcast(idx) : b.atBroadcast(idx);
            }
            assertArrayEquals(o.data(), out, "where " + t);
        }
    }

    static Graph castGraph(DType from, DType to, int n) {
        Graph g = new Graph("cast");
        g.setOutputs(g.cast(g.input("x", Shape.of(from, n)), to));
        return g;
    }

    @Test
    void cast_floatToInt_truncatesAndSaturates() {
        float[] x = {2.9f, -2.9f, 1e10f, -1e10f, Float.NaN, 127.5f, -128.5f, 0.4f};
        assertArrayEquals(new double[] {2, -2, Integer.MAX_VALUE, Integer.MIN_VALUE, 0, 127, -128, 0},
                Runner.run(castGraph(DType.F32, DType.I32, 8), Map.of("x", x)).get(0));
        assertArrayEquals(new double[] {2, -2, 127, -128, 0, 127, -128, 0},
                Runner.run(castGraph(DType.F32, DType.I8, 8), Map.of("x", x)).get(0));
        assertArrayEquals(new double[] {2, 0, 255, 0, 0, 127, 0, 0},
                Runner.run(castGraph(DType.F32, DType.U8, 8), Map.of("x", x)).get(0));
    }

    @Test
    void cast_intWidths_wrap_andBoolIsNonZero() {
        long[] x = {300, -1, 5, 0};
        assertArrayEquals(new double[] {44, -1, 5, 0}, Runner.run(castGraph(DType.I64, DType.I8, 4), Map.of("x", x)).get(0));
        assertArrayEquals(new double[] {1, 1, 1, 0}, Runner.run(castGraph(DType.I64, DType.BOOL, 4), Map.of("x", x)).get(0));
        assertArrayEquals(new double[] {300, -1, 5, 0}, Runner.run(castGraph(DType.I64, DType.F32, 4), Map.of("x", x)).get(0));
        assertArrayEquals(new double[] {1, 0, 1},
                Runner.run(castGraph(DType.BOOL, DType.F32, 3), Map.of("x", new boolean[] {true, false, true})).get(0));
        assertArrayEquals(new double[] {1, 0, 1},
                Runner.run(castGraph(DType.F32, DType.BOOL, 3), Map.of("x", new float[] {-0.5f, 0f, Float.NaN})).get(0));
    }

    @Test
    void cast_toHalfTypes_roundsToNearestEven() {
        Random r = new Random(5);
        Ref x = Ref.random(r, -1000, 1000, 1000);
        for (DType t : List.of(DType.F16, DType.BF16)) {
            double[] out = Runner.run(castGraph(DType.F32, t, 1000), Map.of("x", x)).get(0);
            for (int i = 0; i < out.length; i++) {
                float v = (float) x.data()[i];
                // nearest representable value: the result is at least as close as either neighbour
                double err = Math.abs(out[i] - v);
                float ulp = t == DType.F16 ? Math.ulp(HalfFloats.f16ToFloat(HalfFloats.toF16(v))) * 8192
                        : Math.ulp(v) * 65536;
                assertEquals(true, err <= ulp / 2 + 1e-9, t + " of " + v + " gave " + out[i]);
            }
        }
    }

    @Test
    void cast_realToComplex_setsImaginaryZero() {
        Graph g = castGraph(DType.F32, DType.C64, 2);
        try (var s = new dev.rlx.runtime.Session(dev.rlx.runtime.Device.CPU); var c = s.compile(g)) {
            c.setInput("x", new float[] {1.5f, -2f});
            c.run();
            java.lang.foreign.MemorySegment out = java.lang.foreign.Arena.ofAuto().allocate(16);
            c.output(0).copyTo(out);
            assertArrayEquals(new float[] {1.5f, 0f, -2f, 0f}, out.toArray(java.lang.foreign.ValueLayout.JAVA_FLOAT));
        }
    }
}
