package dev.rlx.ir;

import static dev.rlx.ir.Check.f32;
import static dev.rlx.ir.Check.in;
import static dev.rlx.ir.Check.rejects;
import static dev.rlx.ir.Check.s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** If / While / Scan subgraph signatures, custom ops, input and param names, and foreign values. */
class ControlFlowShapeTest {

    /** A graph taking {@code inputs} and returning relu of each (or the inputs themselves for non-floats). */
    static Graph identityLike(String name, Shape... inputs) {
        Graph b = new Graph(name);
        Value[] outs = new Value[inputs.length];
        for (int i = 0; i < inputs.length; i++) {
            Value v = b.input("in" + i, inputs[i]);
            outs[i] = inputs[i].dtype().isFloat() ? b.relu(v) : v;
        }
        b.setOutputs(outs);
        return b;
    }

    // ---------------------------------------------------------------- if

    @Test
    void if_returnsBranchOutputs() {
        Graph g = new Graph("main");
        Value p = in(g, DType.BOOL);
        Value x = in(g, f32(2, 3));
        Value y = in(g, DType.I32, 4);
        List<Value> r = g.ifElse(p, identityLike("then", f32(2, 3), s(DType.I32, 4)),
                identityLike("else", f32(2, 3), s(DType.I32, 4)), x, y);
        assertEquals(List.of(f32(2, 3), s(DType.I32, 4)), r.stream().map(Value::shape).toList());
        assertEquals(List.of(p, x, y), r.get(0).node().inputs());
    }

    @Test
    void if_predicateMustBeOneBoolElement() {
        Graph g = new Graph("main");
        Value x = in(g, f32(2));
        Graph t = identityLike("t", f32(2));
        Graph e = identityLike("e", f32(2));
        for (Shape ok : List.of(s(DType.BOOL), s(DType.BOOL, 1), s(DType.BOOL, 1, 1))) {
            assertEquals(f32(2), g.ifElse(in(g, ok), t, e, x).get(0).shape(), ok.toString());
        }
        for (Shape bad : List.of(s(DType.BOOL, 2), s(DType.BOOL, 0), f32(), s(DType.I32, 1))) {
            Value p = in(g, bad);
            rejects(g, "if", () -> g.ifElse(p, t, e, x), bad.toString(), "predicate");
        }
        rejects(g, "if", () -> g.apply(new Op.If(t, e), List.of()), "predicate");
    }

    @Test
    void if_signatureMismatches_rejected() {
        Graph g = new Graph("main");
        Value p = in(g, DType.BOOL);
        Value x = in(g, f32(2));
        Graph t = identityLike("t", f32(2));
        Graph wrongIn = identityLike("wrongIn", f32(3));
        rejects(g, "if", () -> g.ifElse(p, t, wrongIn, x), "else", "@wrongIn", "f32[3]", "f32[2]");
        rejects(g, "if", () -> g.ifElse(p, wrongIn, t, x), "then", "@wrongIn");
        rejects(g, "if", () -> g.ifElse(p, t, t), "then", "f32[2]", "[]"); // no captures given
        Graph otherOut = new Graph("otherOut");
        Value oi = otherOut.input("a", f32(2));
        otherOut.setOutputs(otherOut.cast(oi, DType.F16));
        rejects(g, "if", () -> g.ifElse(p, t, otherOut, x), "different shapes", "f32[2]", "f16[2]");
    }

    @Test
    void if_branchWithParams_rejected() {
        Graph g = new Graph("main");
        Value p = in(g, DType.BOOL);
        Value x = in(g, f32(2));
        Graph withParam = new Graph("wp");
        Value a = withParam.input("a", f32(2));
        withParam.setOutputs(withParam.add(a, withParam.param("bias", f32(2))));
        rejects(g, "if", () -> g.ifElse(p, withParam, identityLike("e", f32(2)), x), "@wp", "params", "bias");
    }

    @Test
    void if_branchWithoutOutputs_rejected() {
        Graph g = new Graph("main");
        Value p = in(g, DType.BOOL);
        Value x = in(g, f32(2));
        Graph empty = new Graph("empty");
        empty.input("a", f32(2));
        rejects(g, "if", () -> g.ifElse(p, empty, identityLike("e", f32(2)), x), "@empty", "no outputs");
    }

    @Test
    void if_graphInsideItself_rejected() {
        // g's signature (one bool in, one bool out) fits its own If node, so only a containment check stops
        // g from embedding itself (and fingerprint, print and verify from recursing forever).
        Graph g = new Graph("g");
        Value a = g.input("a", Shape.scalar(DType.BOOL));
        g.setOutputs(a);
        Graph other = new Graph("other");
        other.setOutputs(other.input("b", Shape.scalar(DType.BOOL)));
        rejects(g, "if", () -> g.ifElse(a, g, other, a), "thenBranch", "@g", "itself");
        rejects(g, "if", () -> g.ifElse(a, other, g, a), "elseBranch", "@g", "itself");
        // indirectly: g inside outer, then outer inside g
        Graph outer = new Graph("outer");
        Value oa = outer.input("a", Shape.scalar(DType.BOOL));
        outer.setOutputs(outer.ifElse(oa, g, other, oa));
        rejects(g, "if", () -> g.ifElse(a, outer, other, a), "@outer", "contains @g");
        Graph body = new Graph("body");
        Value bb = body.input("b", Shape.scalar(DType.BOOL));
        body.setOutputs(body.ifElse(bb, other, other, bb));
        assertEquals(s(DType.BOOL), g.whileLoop(other, body, 3, a).get(0).shape(), "sharing a subgraph is fine");
        rejects(body, "while", () -> body.whileLoop(other, body, 3, bb), "body", "@body", "itself");
        assertEquals(64, g.fingerprint().length());
    }

    // ---------------------------------------------------------------- while

    static Graph lessThan(String name, float limit, Shape... carries) {
        Graph c = new Graph(name);
        Value first = c.input("c0", carries[0]);
        for (int i = 1; i < carries.length; i++) {
            c.input("c" + i, carries[i]);
        }
        c.setOutputs(c.lt(c.reduceSum(first, false), c.scalar(limit)));
        return c;
    }

    @Test
    void while_carriesKeepTheirShapes() {
        Graph g = new Graph("main");
        Value a = in(g, f32(3));
        Value n = in(g, DType.I64);
        List<Value> r = g.whileLoop(lessThan("cond", 10f, f32(3), s(DType.I64)),
                identityLike("body", f32(3), s(DType.I64)), 100, a, n);
        assertEquals(List.of(f32(3), s(DType.I64)), r.stream().map(Value::shape).toList());
        assertEquals(100L, ((Op.While) r.get(0).node().op()).maxIterations());
        assertEquals(2, g.whileLoop(lessThan("c", 1f, f32(3), s(DType.I64)), identityLike("b", f32(3), s(DType.I64)),
                -1, a, n).size());
    }

    @Test
    void while_badCondOrBody_rejected() {
        Graph g = new Graph("main");
        Value a = in(g, f32(3));
        Graph body = identityLike("body", f32(3));
        Graph condF32 = new Graph("condF32");
        condF32.setOutputs(condF32.reduceSum(condF32.input("c", f32(3)), false));
        rejects(g, "while", () -> g.whileLoop(condF32, body, 5, a), "cond", "f32[]");
        Graph condVec = new Graph("condVec");
        Value cv = condVec.input("c", f32(3));
        condVec.setOutputs(condVec.gt(cv, cv));
        rejects(g, "while", () -> g.whileLoop(condVec, body, 5, a), "cond", "bool[3]");
        Graph condTwo = new Graph("condTwo");
        Value ct = condTwo.input("c", f32(3));
        Value b = condTwo.lt(condTwo.reduceSum(ct, false), condTwo.scalar(1f));
        condTwo.setOutputs(b, b);
        rejects(g, "while", () -> g.whileLoop(condTwo, body, 5, a), "cond", "[bool[], bool[]]");
        Graph cond = lessThan("cond", 3f, f32(3));
        Graph grow = new Graph("grow");
        Value gi = grow.input("c", f32(3));
        grow.setOutputs(grow.concat(0, gi, gi));
        rejects(g, "while", () -> g.whileLoop(cond, grow, 5, a), "body", "f32[3]", "f32[6]");
        Graph condWrongIn = lessThan("cw", 3f, f32(4));
        rejects(g, "while", () -> g.whileLoop(condWrongIn, body, 5, a), "@cw", "f32[4]", "f32[3]");
        rejects(g, "while", () -> g.whileLoop(cond, body, 5), "at least one");
        rejects("while", () -> new Op.While(cond, body, -2), "maxIterations", "-2");
        Graph bodyParam = new Graph("bp");
        bodyParam.setOutputs(bodyParam.add(bodyParam.input("c", f32(3)), bodyParam.param("w", f32(3))));
        rejects(g, "while", () -> g.whileLoop(cond, bodyParam, 5, a), "@bp", "params", "w");
    }

    // ---------------------------------------------------------------- scan

    /** body(carry [2], x_t [3]) -> (carry + sum(x_t), x_t * 2 as f16 [3], carry [2]). */
    static Graph scanBody() {
        Graph b = new Graph("body");
        Value c = b.input("c", f32(2));
        Value x = b.input("x", f32(3));
        Value next = b.add(c, b.reduceSum(x, true));
        b.setOutputs(next, b.cast(b.add(x, x), DType.F16), c);
        return b;
    }

    @Test
    void scan_stacksYsBehindTheCarries() {
        Graph g = new Graph("main");
        Value c = in(g, f32(2));
        Value xs = in(g, f32(5, 3));
        List<Value> r = g.scan(scanBody(), 5, 1, false, c, xs);
        assertEquals(List.of(f32(2), s(DType.F16, 5, 3), f32(5, 2)), r.stream().map(Value::shape).toList());
        Op.Scan reversed = (Op.Scan) g.scan(scanBody(), 5, 1, true, c, xs).get(0).node().op();
        assertTrue(reversed.reverse());
        assertEquals(5, reversed.length());
        assertEquals(1, reversed.numCarries());
    }

    @Test
    void scan_withoutXs_usesLength() {
        Graph g = new Graph("main");
        Graph body = new Graph("count");
        Value i = body.input("i", s(DType.I32));
        body.setOutputs(body.add(i, body.scalar(DType.I32, 1)), body.cast(i, DType.F32));
        List<Value> r = g.scan(body, 4, 1, false, in(g, DType.I32));
        assertEquals(List.of(s(DType.I32), f32(4)), r.stream().map(Value::shape).toList());
    }

    @Test
    void scan_rejections() {
        Graph g = new Graph("main");
        Value c = in(g, f32(2));
        Value xs4 = in(g, f32(4, 3));
        rejects(g, "scan", () -> g.scan(scanBody(), 5, 1, false, c, xs4), "f32[4,3]", "length=5");
        Value scalarXs = in(g, f32());
        rejects(g, "scan", () -> g.scan(scanBody(), 5, 1, false, c, scalarXs), "f32[]", "leading dim");
        Value xs = in(g, f32(5, 3));
        rejects(g, "scan", () -> g.scan(scanBody(), 5, 3, false, c, xs), "at least 3 carries");
        Value wrongCarry = in(g, f32(3));
        rejects(g, "scan", () -> g.scan(scanBody(), 5, 1, false, wrongCarry, xs), "@body", "f32[3]");
        // body returning a carry of another shape than it takes
        Graph bad = new Graph("bad");
        Value bc = bad.input("c", f32(2));
        bad.input("x", f32(3));
        bad.setOutputs(bad.concat(0, bc, bc));
        rejects(g, "scan", () -> g.scan(bad, 5, 1, false, c, xs), "carries", "f32[2]", "f32[4]");
        rejects("scan", () -> new Op.Scan(scanBody(), -1, 1, false), "length");
        rejects("scan", () -> new Op.Scan(scanBody(), 1, -1, false), "numCarries");
        Graph withParam = new Graph("sp");
        withParam.setOutputs(withParam.add(withParam.input("c", f32(2)), withParam.param("p", f32(2))));
        Value xs2 = in(g, f32(5, 0));
        rejects(g, "scan", () -> g.scan(withParam, 5, 1, false, c), "@sp", "params");
        assertEquals(f32(5, 3), g.scan(identityLike("id", f32(3)), 5, 0, false, xs).get(0).shape(),
                "numCarries 0: every input is scanned");
        assertEquals(f32(5, 0), g.scan(identityLike("id0", f32(0)), 5, 0, false, xs2).get(0).shape());
    }

    // ---------------------------------------------------------------- custom

    @Test
    void custom_returnsDeclaredOutputs() {
        Graph g = new Graph("main");
        Value x = in(g, f32(2, 3));
        List<Value> r = g.custom("my_op", Attrs.of("k", 3), List.of(f32(7), s(DType.I64, 2, 2)), x, x);
        assertEquals(List.of(f32(7), s(DType.I64, 2, 2)), r.stream().map(Value::shape).toList());
        assertEquals("custom:my_op", r.get(0).node().op().label());
        assertEquals(1, g.custom("src", Attrs.EMPTY, List.of(f32())).size(), "no operands is fine");
        rejects("custom", () -> new Op.Custom("none", Attrs.EMPTY, List.of()), "none", "at least one output");
        rejects("custom", () -> new Op.Custom(" ", Attrs.EMPTY, List.of(f32())), "name");
    }

    // ---------------------------------------------------------------- names and ownership

    @Test
    void inputAndParamNames_mustBeUnique() {
        Graph g = new Graph("main");
        g.input("x", f32(2));
        g.param("w", f32(2));
        int size = g.size();
        IllegalArgumentException dupInput = assertThrows(IllegalArgumentException.class, () -> g.input("x", f32(3)));
        assertTrue(dupInput.getMessage().contains("'x'") && dupInput.getMessage().contains("unique"),
                dupInput.getMessage());
        IllegalArgumentException paramVsInput = assertThrows(IllegalArgumentException.class, () -> g.param("x", f32(2)));
        assertTrue(paramVsInput.getMessage().contains("already has an input named 'x'"), paramVsInput.getMessage());
        IllegalArgumentException inputVsParam = assertThrows(IllegalArgumentException.class, () -> g.input("w", f32(2)));
        assertTrue(inputVsParam.getMessage().contains("already has a param named 'w'"), inputVsParam.getMessage());
        assertEquals(size, g.size(), "rejected names add no node");
        assertEquals(List.of(g.input("x")), g.inputs());
        rejects("input", () -> g.input("", f32(2)), "name");
        rejects("param", () -> g.param(" ", f32(2)), "name");
    }

    @Test
    void valuesFromAnotherGraph_rejected() {
        Graph g = new Graph("main");
        Graph other = new Graph("other");
        Value x = in(g, f32(2));
        Value y = in(other, f32(2));
        rejects(g, "add", () -> g.add(x, y), "@other", "@main");
        rejects(g, "matmul", () -> g.matmul(x, y), "@other");
        rejects(g, "matmul", () -> g.matmul(x, y, f32()), "@other");
        rejects(g, "reduce_sum", () -> g.reduceSum(y, false), "@other");
        rejects(g, "reshape", () -> g.reshape(y, 2), "@other");
        rejects(g, "concat", () -> g.concat(0, x, y), "@other");
        rejects(g, "softmax", () -> g.softmax(y, 0), "@other");
        Value p = in(g, DType.BOOL);
        Graph t = identityLike("t", f32(2));
        rejects(g, "if", () -> g.ifElse(p, t, t, y), "@other");
        rejects(g, "setOutputs", () -> g.setOutputs(x, y), "@other");
        assertEquals(List.of(), g.outputs(), "a rejected setOutputs keeps the old outputs");
        rejects(g, "name", () -> g.name(y, "n"), "@other");
    }

    @Test
    void setOutputs_rules() {
        Graph g = new Graph("main");
        Value x = in(g, f32(2));
        assertThrows(IllegalArgumentException.class, () -> g.setOutputs());
        g.setOutputs(x, x);
        assertEquals(List.of(x, x), g.outputs(), "values may repeat");
        assertEquals(List.of(f32(2), f32(2)), g.outputShapes());
    }
}
