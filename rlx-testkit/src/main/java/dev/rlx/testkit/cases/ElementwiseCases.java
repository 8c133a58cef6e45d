package dev.rlx.testkit.cases;

import static dev.rlx.testkit.cases.Shapes.dims;
import static dev.rlx.testkit.cases.Shapes.f32;
import static dev.rlx.testkit.cases.Shapes.of;
import static dev.rlx.testkit.cases.Shapes.t;

import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.CompareKind;
import dev.rlx.ir.DType;
import dev.rlx.ir.UnaryKind;
import dev.rlx.ir.Value;
import dev.rlx.testkit.Data;
import dev.rlx.testkit.OpCase;
import dev.rlx.testkit.OpFamily;
import dev.rlx.testkit.Tolerance;
import dev.rlx.testkit.reference.ElementRefs;
import dev.rlx.testkit.reference.TensorData;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** Unary, binary, compare, where and cast: every kind in every dtype it takes, broadcasting, edge values. */
final class ElementwiseCases {
    private ElementwiseCases() {}

    /** Enough elements for several vector chunks, a ragged tail and a parallel split. */
    static final int LARGE = 70_001;

    private static final DType[] INTEGERS = {DType.I8, DType.I16, DType.I32, DType.I64, DType.U8, DType.U32};

    static OpFamily family() {
        List<OpCase> c = new ArrayList<>();
        unary(c);
        binary(c);
        compareWhereCast(c);
        return new OpFamily("elementwise", c);
    }

    // ---------------------------------------------------------------- unary

    /** Inputs inside each function's domain and away from its poles ({@link ElementRefs#inputs}). */
    static Data domain(UnaryKind k) {
        return (shape, r) -> TensorData.of(shape, ElementRefs.inputs(k, r, shape.dims()).data());
    }

    private static OpCase unaryCase(String name, UnaryKind k, DType t, int[] d, Tolerance tol) {
        return OpCase.named(name)
                .graph(g -> g.setOutputs(g.unary(k, g.input("x", of(t, d)))))
                .data("x", domain(k))
                .tolerance(t, tol)
                .build();
    }

    private static void unary(List<OpCase> c) {
        for (UnaryKind k : UnaryKind.values()) {
            if (!k.accepts(DType.F32)) {
                continue;
            }
            String n = k.label();
            // SVML-class vector functions are within a few ulp; erf's polynomial within 1.5e-7 absolute
            double atol = k == UnaryKind.GELU || k == UnaryKind.ERF ? 5e-7 : 1e-6;
            c.add(unaryCase(n + "_f32_" + LARGE, k, DType.F32, new int[] {LARGE},
                    Tolerance.of(atol, 2e-6, "vector math functions are within a few f32 ulp")));
            c.add(unaryCase(n + "_f64_3x333", k, DType.F64, new int[] {3, 333},
                    Tolerance.of(1e-12, 1e-12, "double-precision definitions; erf to 1e-15")));
            // GELUs keep the f32 absolute error (1 + erf(x) cancels for x << 0, leaving tiny values)
            double halfAtol = k == UnaryKind.GELU || k == UnaryKind.GELU_TANH ? atol : 0;
            c.add(unaryCase(n + "_f16_257", k, DType.F16, new int[] {257}, Tolerance.of(halfAtol, 1e-3,
                    "computed in f32 and rounded once to f16: a neighbouring f16 at worst")));
            c.add(unaryCase(n + "_bf16_257", k, DType.BF16, new int[] {257}, Tolerance.of(halfAtol, 8e-3,
                    "computed in f32 and rounded once to bf16: a neighbouring bf16 at worst")));
        }
        c.add(OpCase.named("exp_f32_transposedOperand")
                .graph(g -> g.setOutputs(g.exp(g.transpose(g.input("x", f32(37, 19)), 1, 0))))
                .data("x", Data.uniform(-5, 5))
                .tolerance(DType.F32, Tolerance.of(1e-6, 2e-6, "a few f32 ulp"))
                .build());
        c.add(OpCase.named("tanh_f32_slicedOperandNegativeStep")
                .graph(g -> g.setOutputs(g.tanh(g.slice(g.input("x", f32(5, 41)), 1, 40, 20, -2))))
                .data("x", Data.uniform(-3, 3))
                .build());
        specialValues(c);
        for (DType t : new DType[] {DType.F32, DType.F64, DType.F16, DType.BF16}) {
            c.add(OpCase.named("round_" + t(t) + "_halvesGoToEven")
                    .graph(g -> g.setOutputs(g.round(g.input("x", of(t, 8)))))
                    .data("x", Data.values(0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 2.4, -3.6))
                    .tolerance(t, Tolerance.exact("round half to even is exact, -0.5 gives -0"))
                    .build());
        }
        for (DType t : INTEGERS) {
            for (UnaryKind k : List.of(UnaryKind.NEG, UnaryKind.ABS, UnaryKind.SIGN, UnaryKind.RELU)) {
                long min = t == DType.I8 ? Byte.MIN_VALUE : t == DType.I16 ? Short.MIN_VALUE
                        : t == DType.I32 ? Integer.MIN_VALUE : t == DType.I64 ? Long.MIN_VALUE : 0;
                c.add(OpCase.named(k.label() + "_" + t(t) + "_wrapsAtTheWidth")
                        .graph(g -> g.setOutputs(g.unary(k, g.input("x", of(t, 6)))))
                        .data("x", t.isUnsigned() ? Data.longs(7, 0, 5, 200, 3, 255) : Data.longs(-7, 0, 5, min, 3, min + 1))
                        .build());
                c.add(OpCase.named(k.label() + "_" + t(t) + "_random_" + dims(3, 37))
                        .graph(g -> g.setOutputs(g.unary(k, g.input("x", of(t, 3, 37)))))
                        .data("x", Data.uniform(-100, 100))
                        .build());
            }
        }
        c.add(OpCase.named("not_bool_flips")
                .graph(g -> g.setOutputs(g.not(g.input("x", of(DType.BOOL, 67)))))
                .data("x", Data.bools())
                .build());
    }

    /** Kinds whose values at +-inf the formula defines (others give inf * 0 or inf / inf there). */
    private static final Set<UnaryKind> DEFINED_AT_INFINITY = EnumSet.of(UnaryKind.RELU, UnaryKind.SIGMOID,
            UnaryKind.TANH, UnaryKind.EXP, UnaryKind.LOG, UnaryKind.SQRT, UnaryKind.RSQRT, UnaryKind.RECIPROCAL,
            UnaryKind.NEG, UnaryKind.ABS, UnaryKind.SIGN, UnaryKind.SIN, UnaryKind.COS, UnaryKind.TAN, UnaryKind.ATAN,
            UnaryKind.ERF, UnaryKind.ROUND, UnaryKind.FLOOR, UnaryKind.CEIL);

    /** NaN in the vector body and in the tail; infinities where defined: 19 elements so both loops see them. */
    private static void specialValues(List<OpCase> c) {
        double inf = Double.POSITIVE_INFINITY;
        for (UnaryKind k : UnaryKind.values()) {
            if (!k.accepts(DType.F32)) {
                continue;
            }
            Data d = Data.uniform(0.5, 3).with(Double.NaN, 1, 17);
            if (DEFINED_AT_INFINITY.contains(k)) {
                d = d.with(inf, 3, 18).with(-inf, 5, 16);
            }
            Data data = d;
            c.add(OpCase.named(k.label() + "_f32_nanAndInfinities")
                    .graph(g -> g.setOutputs(g.unary(k, g.input("x", f32(19)))))
                    .data("x", data)
                    .build());
        }
    }

    // ---------------------------------------------------------------- binary

    /** Operand dims pairs covering every broadcasting case: same shape, scalars, rows, columns, both, ranks, empty. */
    static final int[][][] BROADCASTS = {
            {{5, 37}, {5, 37}},
            {{}, {4, 33}},
            {{4, 33}, {1}},
            {{6, 35}, {35}},
            {{6, 35}, {6, 1}},
            {{7, 1}, {1, 19}},
            {{3, 1, 5}, {4, 1}},
            {{2, 3, 1, 4}, {3, 5, 1}},
            {{0, 4}, {4}},
            {{1, 1}, {1}},
            {{300, 257}, {300, 1}}, // large: parallel, ragged vector tail
    };

    private static String pair(int[][] p) {
        return dims(p[0]) + "_" + dims(p[1]);
    }

    private static OpCase binaryCase(String name, BinaryKind k, DType t, int[] ad, int[] bd, Data a, Data b,
                                     Tolerance tol) {
        OpCase.Builder c = OpCase.named(name)
                .graph(g -> g.setOutputs(g.binary(k, g.input("a", of(t, ad)), g.input("b", of(t, bd)))))
                .data("a", a)
                .data("b", b);
        return (t.isFloat() ? c.tolerance(t, tol) : c).build();
    }

    private static void binary(List<OpCase> c) {
        Tolerance f32 = Tolerance.of(1e-6, 2e-6, "the f32 rounding of the exact op; pow within ~1 ulp");
        Tolerance f64 = Tolerance.of(1e-12, 1e-12, "double arithmetic");
        for (int[][] p : BROADCASTS) {
            for (BinaryKind k : BinaryKind.values()) {
                if (!k.accepts(DType.F32)) {
                    continue;
                }
                boolean pow = k == BinaryKind.POW;
                Data a = pow ? Data.uniform(0.1, 3) : Data.uniform(-5, 5);
                Data b = pow ? Data.uniform(-2, 2) : Data.uniform(-5, 5);
                c.add(binaryCase(k.label() + "_f32_" + pair(p), k, DType.F32, p[0], p[1], a, b, f32));
                c.add(binaryCase(k.label() + "_f64_" + pair(p), k, DType.F64, p[0], p[1], a, b, f64));
            }
        }
        for (DType t : new DType[] {DType.F16, DType.BF16}) {
            for (BinaryKind k : BinaryKind.values()) {
                if (k.accepts(t)) {
                    boolean pow = k == BinaryKind.POW;
                    c.add(binaryCase(k.label() + "_" + t(t) + "_7x1_1x19", k, t, new int[] {7, 1}, new int[] {1, 19},
                            pow ? Data.uniform(0.1, 3) : Data.uniform(-5, 5), pow ? Data.uniform(-2, 2) : Data.uniform(-5, 5),
                            Tolerance.of(0, t == DType.F16 ? 1e-3 : 8e-3, "computed wider and rounded once")));
                }
            }
        }
        for (DType t : INTEGERS) {
            for (BinaryKind k : List.of(BinaryKind.ADD, BinaryKind.SUB, BinaryKind.MUL, BinaryKind.DIV, BinaryKind.MOD,
                    BinaryKind.MAX, BinaryKind.MIN)) {
                Data d = Data.uniform(-120, 120);
                c.add(binaryCase(k.label() + "_" + t(t) + "_6x35_35", k, t, new int[] {6, 35}, new int[] {35}, d, d,
                        null));
            }
        }
        c.add(integerCase("div_i64_truncatesTowardZeroAndZeroDivisorGivesZero", BinaryKind.DIV, DType.I64));
        c.add(integerCase("mod_i64_floorsAndZeroDivisorGivesZero", BinaryKind.MOD, DType.I64));
        c.add(integerCase("div_i32_truncatesTowardZeroAndZeroDivisorGivesZero", BinaryKind.DIV, DType.I32));
        c.add(OpCase.named("add_i32_wrapsAt32Bits")
                .graph(g -> g.setOutputs(g.add(g.input("a", of(DType.I32, 2)), g.input("b", of(DType.I32)))))
                .data("a", Data.longs(Integer.MAX_VALUE, 0))
                .data("b", Data.longs(1))
                .build());
        c.add(OpCase.named("mul_i64_wraps")
                .graph(g -> g.setOutputs(g.mul(g.input("a", of(DType.I64, 2)), g.input("b", of(DType.I64, 2)))))
                .data("a", Data.longs(Long.MAX_VALUE, 1L << 62))
                .data("b", Data.longs(3, -5))
                .build());
        for (BinaryKind k : List.of(BinaryKind.AND, BinaryKind.OR, BinaryKind.XOR)) {
            c.add(OpCase.named(k.label() + "_bool_truthTable")
                    .graph(g -> g.setOutputs(g.binary(k, g.input("a", of(DType.BOOL, 4)), g.input("b", of(DType.BOOL, 4)))))
                    .data("a", Data.values(1, 1, 0, 0))
                    .data("b", Data.values(1, 0, 1, 0))
                    .build());
            c.add(OpCase.named(k.label() + "_bool_broadcast_7x1_1x19")
                    .graph(g -> g.setOutputs(g.binary(k, g.input("a", of(DType.BOOL, 7, 1)), g.input("b", of(DType.BOOL, 1, 19)))))
                    .build());
        }
        for (BinaryKind k : List.of(BinaryKind.MAX, BinaryKind.MIN)) {
            // 19 elements so the vector loop, not only the tail, sees NaN
            double nan = Double.NaN;
            c.add(OpCase.named(k.label() + "_f32_propagatesNaN")
                    .graph(g -> g.setOutputs(g.binary(k, g.input("a", f32(19)), g.input("b", f32(19)))))
                    .data("a", Data.values(repeat(19, nan, 1, 2, nan)))
                    .data("b", Data.values(repeat(19, 1, nan, 3, nan)))
                    .tolerance(DType.F32, Tolerance.exact("max and min select an operand"))
                    .build());
        }
        c.add(OpCase.named("add_f32_transposedAndSlicedOperands")
                .graph(g -> {
                    Value a = g.transpose(g.input("a", f32(3, 17, 5)), 2, 0, 1);        // [5, 3, 17]
                    Value b = g.slice(g.input("b", f32(3, 40)), 1, 2, 17, 2);          // [3, 17], every other column
                    g.setOutputs(g.add(a, b));
                })
                .build());
        c.add(OpCase.named("mul_f32_expandedOperand")
                .graph(g -> g.setOutputs(g.mul(g.expand(g.input("a", f32(1, 33)), 4, 33), g.input("b", f32(4, 33)))))
                .build());
    }

    /** Divisor signs both ways and a zero divisor: {@code 7 / -2 = -3}, {@code -7 mod 2 = 1}, {@code x / 0 = 0}. */
    private static OpCase integerCase(String name, BinaryKind k, DType t) {
        long big = t == DType.I64 ? Long.MAX_VALUE : Integer.MAX_VALUE;
        return OpCase.named(name)
                .graph(g -> g.setOutputs(g.binary(k, g.input("a", of(t, 8)), g.input("b", of(t, 8)))))
                .data("a", Data.longs(7, -7, 7, -7, 5, big, 9, -9))
                .data("b", Data.longs(2, 2, -2, -2, 0, 1, 3, 0))
                .build();
    }

    private static double[] repeat(int n, double... pattern) {
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = pattern[i % pattern.length];
        }
        return v;
    }

    // ---------------------------------------------------------------- compare, where, cast

    private static void compareWhereCast(List<OpCase> c) {
        for (int[][] p : BROADCASTS) {
            for (DType t : new DType[] {DType.F32, DType.I64}) {
                // small integers make equality common
                c.add(OpCase.named("compare_" + t(t) + "_" + pair(p))
                        .graph(g -> {
                            Value a = g.input("a", of(t, p[0]));
                            Value b = g.input("b", of(t, p[1]));
                            List<Value> outs = new ArrayList<>();
                            for (CompareKind k : CompareKind.values()) {
                                outs.add(g.compare(k, a, b));
                            }
                            g.setOutputs(outs);
                        })
                        .data("a", Data.ints(-3, 3))
                        .data("b", Data.ints(-3, 3))
                        .build());
            }
        }
        for (DType t : new DType[] {DType.F64, DType.F16, DType.BF16, DType.I8, DType.I16, DType.I32, DType.U8,
                DType.U32, DType.BOOL}) {
            c.add(OpCase.named("compare_" + t(t) + "_7x1_1x19")
                    .graph(g -> {
                        Value a = g.input("a", of(t, 7, 1));
                        Value b = g.input("b", of(t, 1, 19));
                        List<Value> outs = new ArrayList<>();
                        for (CompareKind k : CompareKind.values()) {
                            outs.add(g.compare(k, a, b));
                        }
                        g.setOutputs(outs);
                    })
                    .data("a", t.isBool() ? Data.bools() : Data.ints(0, 5))
                    .data("b", t.isBool() ? Data.bools() : Data.ints(0, 5))
                    .build());
        }
        c.add(OpCase.named("compare_f32_nanIsUnordered")
                .graph(g -> {
                    Value a = g.input("a", f32(2));
                    Value b = g.input("b", f32(2));
                    g.setOutputs(g.eq(a, b), g.ne(a, b), g.lt(a, b), g.ge(a, b), g.le(a, b), g.gt(a, b));
                })
                .data("a", Data.values(Double.NaN, 1))
                .data("b", Data.values(Double.NaN, 1))
                .build());
        for (DType t : new DType[] {DType.F32, DType.I64, DType.F16, DType.F64, DType.BF16, DType.I8, DType.U8,
                DType.I32, DType.BOOL, DType.C64}) {
            OpCase.Builder b = OpCase.named("where_" + t(t) + "_broadcastsAllThree_4x1x6_5x1_6")
                    .graph(g -> g.setOutputs(g.where(g.input("c", of(DType.BOOL, 4, 1, 6)), g.input("a", of(t, 5, 1)),
                            g.input("b", of(t, 6)))))
                    .data("a", t.isInteger() ? Data.uniform(-100, 100) : Data.uniform(-4, 4))
                    .data("b", t.isInteger() ? Data.uniform(-100, 100) : Data.uniform(-4, 4));
            if (t.isFloat() || t.isComplex()) {
                b.tolerance(t, Tolerance.exact("where copies an operand"));
            }
            c.add(b.build());
        }
        casts(c);
    }

    private static void casts(List<OpCase> c) {
        Tolerance exact = Tolerance.exact("cast is defined exactly: round to nearest even, truncate and saturate, wrap");
        c.add(OpCase.named("cast_f32ToIntegers_truncatesAndSaturates")
                .graph(g -> {
                    Value x = g.input("x", f32(10));
                    g.setOutputs(g.cast(x, DType.I32), g.cast(x, DType.I8), g.cast(x, DType.U8), g.cast(x, DType.I64),
                            g.cast(x, DType.I16), g.cast(x, DType.U32));
                })
                .data("x", Data.values(2.9, -2.9, 1e10, -1e10, Double.NaN, 127.5, -128.5, 0.4, Double.POSITIVE_INFINITY,
                        Double.NEGATIVE_INFINITY))
                .build());
        c.add(OpCase.named("cast_i64ToNarrower_wraps_andToBoolIsNonZero")
                .graph(g -> {
                    Value x = g.input("x", of(DType.I64, 6));
                    g.setOutputs(g.cast(x, DType.I8), g.cast(x, DType.BOOL), g.cast(x, DType.F32), g.cast(x, DType.U8),
                            g.cast(x, DType.I32), g.cast(x, DType.U32), g.cast(x, DType.I16), g.cast(x, DType.F64));
                })
                .data("x", Data.longs(300, -1, 5, 0, 1L << 40, -(1L << 33) - 7))
                .tolerance(DType.F32, exact)
                .tolerance(DType.F64, exact)
                .build());
        c.add(OpCase.named("cast_bool_isZeroOrOne_andF32ToBoolIsNonZero")
                .graph(g -> {
                    Value b = g.input("b", of(DType.BOOL, 3));
                    Value x = g.input("x", f32(4));
                    g.setOutputs(g.cast(b, DType.F32), g.cast(b, DType.I64), g.cast(x, DType.BOOL), g.cast(b, DType.F16));
                })
                .data("b", Data.values(1, 0, 1))
                .data("x", Data.values(-0.5, 0, Double.NaN, -0.0))
                .tolerance(DType.F32, exact)
                .tolerance(DType.F16, exact)
                .build());
        for (DType to : new DType[] {DType.F16, DType.BF16}) {
            c.add(OpCase.named("cast_f32To" + t(to) + "_roundsToNearestEven")
                    .graph(g -> g.setOutputs(g.cast(g.input("x", f32(1000)), to)))
                    .data("x", Data.uniform(-1000, 1000))
                    .tolerance(to, exact)
                    .build());
        }
        c.add(OpCase.named("cast_realToC64_setsImaginaryZero")
                .graph(g -> {
                    Value x = g.input("x", f32(3));
                    g.setOutputs(g.cast(x, DType.C64), g.cast(g.input("i", of(DType.I32, 2)), DType.C64));
                })
                .data("x", Data.values(1.5, -2, 1e-3))
                .data("i", Data.longs(7, -3))
                .tolerance(DType.C64, exact)
                .build());
        // every dtype to every other, from random values of each dtype's range (one graph per source dtype)
        for (DType from : DType.values()) {
            if (from.isComplex()) {
                continue;
            }
            c.add(OpCase.named("cast_" + t(from) + "_toEveryDtype")
                    .graph(g -> {
                        Value x = g.input("x", of(from, 41));
                        List<Value> outs = new ArrayList<>();
                        for (DType to : DType.values()) {
                            outs.add(g.cast(x, to));
                        }
                        g.setOutputs(outs);
                    })
                    .data("x", from.isBool() ? Data.bools() : Data.uniform(-300, 300))
                    .tolerance(DType.F32, exact).tolerance(DType.F64, exact).tolerance(DType.F16, exact)
                    .tolerance(DType.BF16, exact).tolerance(DType.C64, exact)
                    .build());
        }
    }
}
