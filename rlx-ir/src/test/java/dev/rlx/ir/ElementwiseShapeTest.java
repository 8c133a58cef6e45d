package dev.rlx.ir;

import static dev.rlx.ir.Check.f32;
import static dev.rlx.ir.Check.in;
import static dev.rlx.ir.Check.rejects;
import static dev.rlx.ir.Check.s;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Shape rules of unary, binary, compare, where and cast. */
class ElementwiseShapeTest {
    // Domains written out from UnaryKind's Javadoc, independently of UnaryKind.domain().
    private static final Set<UnaryKind> NUMERIC_UNARY =
            EnumSet.of(UnaryKind.RELU, UnaryKind.NEG, UnaryKind.ABS, UnaryKind.SIGN);
    private static final Set<UnaryKind> BOOL_UNARY = EnumSet.of(UnaryKind.NOT);
    private static final Set<DType> FLOATS = EnumSet.of(DType.F32, DType.F16, DType.BF16, DType.F64);
    private static final Set<DType> INTS = EnumSet.of(DType.I8, DType.I16, DType.I32, DType.I64, DType.U8, DType.U32);

    static Stream<Arguments> unaryKindAndDtype() {
        List<Arguments> a = new ArrayList<>();
        for (UnaryKind k : UnaryKind.values()) {
            for (DType t : DType.values()) {
                a.add(Arguments.of(k, t));
            }
        }
        return a.stream();
    }

    private static boolean unaryAccepts(UnaryKind k, DType t) {
        if (BOOL_UNARY.contains(k)) {
            return t == DType.BOOL;
        }
        if (NUMERIC_UNARY.contains(k)) {
            return FLOATS.contains(t) || INTS.contains(t);
        }
        return FLOATS.contains(t); // every other kind is documented "float only"
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("unaryKindAndDtype")
    void unary_domainPerKind(UnaryKind k, DType t) {
        Graph g = new Graph("u");
        Value x = in(g, t, 2, 3);
        if (unaryAccepts(k, t)) {
            Value y = g.unary(k, x);
            assertEquals(s(t, 2, 3), y.shape());
        } else {
            rejects(g, k.label(), () -> g.unary(k, x), t.label() + "[2,3]");
        }
    }

    @Test
    void unary_floatOnlyKinds_rejectIntegers_notOnlyBool() {
        Graph g = new Graph("u");
        Value i = in(g, DType.I32, 4);
        for (UnaryKind k : List.of(UnaryKind.EXP, UnaryKind.GELU, UnaryKind.SQRT, UnaryKind.ROUND, UnaryKind.FLOOR)) {
            rejects(g, k.label(), () -> g.unary(k, i), "i32[4]");
        }
    }

    @Test
    void unary_preservesScalarAndZeroSizeShapes() {
        Graph g = new Graph("u");
        assertEquals(f32(), g.exp(in(g, f32())).shape());
        assertEquals(f32(0, 3), g.tanh(in(g, f32(0, 3))).shape());
        assertEquals(s(DType.BOOL, 2), g.not(in(g, DType.BOOL, 2)).shape());
    }

    // ---------------------------------------------------------------- binary broadcasting

    @ParameterizedTest(name = "{0} (+) {1} -> {2}")
    @CsvSource(delimiter = ';', value = {
            "2,3; 3; 2,3",
            "3; 2,3; 2,3",
            "2,1; 1,3; 2,3",
            "; 2,3; 2,3",
            "2,3; ; 2,3",
            "; ; ",
            "0; 1; 0",
            "1; 0; 0",
            "2,0; 2,1; 2,0",
            "5,1,4; 3,1; 5,3,4",
            "4,1,1,2; 3,1; 4,1,3,2",
            "1,1,1; 7; 1,1,7",
            "8,1,6,1; 7,1,5; 8,7,6,5",
    })
    void binary_broadcastTable(String a, String b, String expected) {
        Graph g = new Graph("b");
        Value x = in(g, f32(dims(a)));
        Value y = in(g, f32(dims(b)));
        assertEquals(f32(dims(expected)), g.add(x, y).shape());
        assertEquals(f32(dims(expected)), g.sub(y, x).shape(), "broadcasting is symmetric");
    }

    @ParameterizedTest(name = "{0} (+) {1} rejected")
    @CsvSource(delimiter = ';', value = {
            "2,3; 4",
            "0; 3",
            "3; 0",
            "2,3; 3,3",
            "5,2,4; 3,4",
            "2,1; 3,1,4,5",
    })
    void binary_broadcastMismatch_rejected(String a, String b) {
        Graph g = new Graph("b");
        Shape sa = f32(dims(a));
        Shape sb = f32(dims(b));
        Value x = in(g, sa);
        Value y = in(g, sb);
        rejects(g, "mul", () -> g.mul(x, y), sa.toString(), sb.toString(), "broadcast");
        rejects(g, "mul", () -> g.mul(y, x), sa.toString(), sb.toString(), "broadcast");
    }

    @ParameterizedTest(name = "{0} + {1}: common type {2}")
    @CsvSource({
            "F32, I32, f32",  // float with a narrower-than-64-bit integer: the float itself
            "I32, F32, f32",
            "F16, BF16, f32", // neither half type holds the other
            "U8, I8, i16",    // signed/unsigned of one width: next wider signed
            "I64, F32, f64",  // a 64-bit integer with a float: f64
            "I16, F16, f32",  // F16/BF16 with an integer: f32
            "BOOL, I32, i32",
    })
    void binary_dtypeMismatch_rejected_namingBothShapesAndCommonType(DType a, DType b, String common) {
        Graph g = new Graph("b");
        Value x = in(g, a, 2);
        Value y = in(g, b, 2);
        rejects(g, "add", () -> g.add(x, y), a.label() + "[2]", b.label() + "[2]", "common type is " + common);
        rejects(g, "gt", () -> g.gt(x, y), a.label() + "[2]", b.label() + "[2]", "common type is " + common);
    }

    @Test
    void binary_domains() {
        Graph g = new Graph("b");
        Value i = in(g, DType.I32, 3);
        Value f = in(g, f32(3));
        Value bo = in(g, DType.BOOL, 3);
        Value c = in(g, DType.C64, 3);
        rejects(g, "pow", () -> g.pow(i, i), "i32[3]");
        assertEquals(f32(3), g.pow(f, f).shape());
        assertEquals(s(DType.I32, 3), g.mod(i, i).shape());
        assertEquals(s(DType.I32, 3), g.div(i, i).shape());
        rejects(g, "and", () -> g.and(f, f), "f32[3]");
        rejects(g, "xor", () -> g.xor(i, i), "i32[3]");
        assertEquals(s(DType.BOOL, 3), g.or(bo, bo).shape());
        rejects(g, "add", () -> g.add(bo, bo), "bool[3]");
        rejects(g, "mul", () -> g.mul(c, c), "c64[3]");
    }

    // ---------------------------------------------------------------- compare, where, cast

    @Test
    void compare_givesBool_withBroadcastShape() {
        Graph g = new Graph("c");
        for (CompareKind k : CompareKind.values()) {
            Value a = in(g, DType.I64, 4, 1);
            Value b = in(g, DType.I64, 3);
            assertEquals(s(DType.BOOL, 4, 3), g.compare(k, a, b).shape(), k.label());
        }
        Value p = in(g, DType.BOOL, 2);
        assertEquals(s(DType.BOOL, 2), g.eq(p, p).shape(), "bools compare for equality");
    }

    @Test
    void compare_rejectsComplexAndMismatch() {
        Graph g = new Graph("c");
        Value c = in(g, DType.C64, 2);
        rejects(g, "lt", () -> g.lt(c, c), "c64[2]");
        Value a = in(g, f32(2, 3));
        Value b = in(g, f32(3, 2));
        rejects(g, "ge", () -> g.ge(a, b), "f32[2,3]", "f32[3,2]");
    }

    @Test
    void where_broadcastsAllThree() {
        Graph g = new Graph("w");
        Value cond = in(g, DType.BOOL, 2, 1, 1);
        Value a = in(g, DType.F16, 1, 3, 1);
        Value b = in(g, DType.F16, 4);
        assertEquals(s(DType.F16, 2, 3, 4), g.where(cond, a, b).shape());
        Value scalarCond = in(g, DType.BOOL);
        assertEquals(s(DType.F16, 1, 3, 4), g.where(scalarCond, a, b).shape());
    }

    @Test
    void where_condMustBeBool_andBranchesShareDtype() {
        Graph g = new Graph("w");
        Value a = in(g, f32(3));
        Value b = in(g, f32(3));
        Value intCond = in(g, DType.I32, 3);
        rejects(g, "where", () -> g.where(intCond, a, b), "i32[3]", "bool");
        rejects(g, "where", () -> g.where(a, a, b), "f32[3]", "bool");
        Value cond = in(g, DType.BOOL, 3);
        Value d = in(g, DType.F64, 3);
        rejects(g, "where", () -> g.where(cond, a, d), "f32[3]", "f64[3]");
        Value wide = in(g, f32(2));
        rejects(g, "where", () -> g.where(cond, a, wide), "f32[2]", "bool[3]");
    }

    static Stream<Arguments> dtypePairs() {
        List<Arguments> a = new ArrayList<>();
        for (DType from : DType.values()) {
            for (DType to : DType.values()) {
                a.add(Arguments.of(from, to));
            }
        }
        return a.stream();
    }

    @ParameterizedTest(name = "cast {0} -> {1}")
    @MethodSource("dtypePairs")
    void cast_everyPair(DType from, DType to) {
        Graph g = new Graph("c");
        Value x = in(g, from, 2, 0, 3);
        if (from == DType.C64 && to != DType.C64) {
            rejects(g, "cast", () -> g.cast(x, to), "c64[2,0,3]", to.label());
        } else {
            assertEquals(s(to, 2, 0, 3), g.cast(x, to).shape());
        }
    }

    static int[] dims(String csv) {
        if (csv == null || csv.isBlank()) {
            return new int[0];
        }
        return Arrays.stream(csv.split(",")).map(String::trim).mapToInt(Integer::parseInt).toArray();
    }
}
