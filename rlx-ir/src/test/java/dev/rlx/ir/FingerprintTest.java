package dev.rlx.ir;

import static dev.rlx.ir.Check.f32;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.GraphEdits.Edit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.IntFunction;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.statistics.Statistics;

/**
 * Fingerprint stability (same construction, names irrelevant) and sensitivity (any attribute, shape, dtype,
 * edge, constant byte, input name or output change gives a different fingerprint).
 */
class FingerprintTest {

    // ---------------------------------------------------------------- stability

    @Property(tries = 200)
    void fingerprint_sameSeedBuiltTwice_equal(@ForAll long seed) {
        Graph a = RandomGraphs.build(seed);
        Graph b = RandomGraphs.build(seed);
        assertEquals(a.fingerprint(), b.fingerprint());
        assertEquals(a.fingerprint(), a.fingerprint(), "fingerprinting does not change the graph");
        assertEquals(64, a.fingerprint().length(), "SHA-256 in hex");
        assertTrue(a.fingerprint().matches("[0-9a-f]{64}"));
    }

    @Property(tries = 200)
    void fingerprint_ignoresGraphNameAndDisplayNames(@ForAll long seed) {
        Graph plain = RandomGraphs.build(seed, "rg", false, true);
        Graph named = RandomGraphs.build(seed, "another_name", true, true);
        assertEquals(plain.fingerprint(), named.fingerprint());
    }

    @Property(tries = 150)
    void fingerprint_copyThroughApply_equal(@ForAll long seed) {
        Graph g = RandomGraphs.build(seed, "rg", true, true);
        Graph copy = GraphEdits.copy(g, "copy", Edit.none());
        assertEquals(g.fingerprint(), copy.fingerprint());
        assertEquals(g.toString().replaceFirst("@rg", "@copy"), copy.toString());
    }

    @Property(tries = 200)
    void fingerprint_equalExactlyWhenCanonicalBytesEqual(@ForAll long seed1, @ForAll long seed2) {
        // Same graph name and no display names, so the serialized bytes differ only by structure.
        Graph a = RandomGraphs.build(seed1, "rg", false, true);
        Graph b = RandomGraphs.build(seed2 % 64, "rg", false, true); // small seed space: some equal pairs
        boolean sameBytes = Arrays.equals(GraphSerializer.toBytes(a), GraphSerializer.toBytes(b));
        assertEquals(sameBytes, a.fingerprint().equals(b.fingerprint()));
    }

    // ---------------------------------------------------------------- sensitivity over random graphs

    @Property(tries = 300)
    void fingerprint_anyFieldOfAnyNodeChanged_differs(@ForAll long seed) {
        Graph g = RandomGraphs.build(seed);
        Random r = new Random(seed);
        String before = g.fingerprint();
        List<Integer> order = shuffledIds(g, r);
        for (int id : order) {
            Op op = g.node(id).op();
            List<OpFields.Field> fields = OpFields.of(op).fields();
            for (int fi = 0; fi < fields.size(); fi++) {
                Op edited = fields.get(fi).type() == OpFields.FieldType.GRAPH
                        ? GraphEdits.withSubgraphChanged(op, fi, r) : GraphEdits.withFieldChanged(op, fi, r);
                if (edited == null || edited.equals(op)) {
                    continue;
                }
                Graph changed = tryCopy(g, Edit.op(id, o -> edited));
                if (changed != null) {
                    Statistics.collect(op.kind(), fields.get(fi).type());
                    assertNotEquals(before, changed.fingerprint(),
                            "changing " + op.label() + "." + fields.get(fi).name() + " of %" + id);
                    return;
                }
            }
        }
    }

    @Property(tries = 200)
    void fingerprint_operandSwappedOrResourced_differs(@ForAll long seed) {
        Graph g = RandomGraphs.build(seed);
        Random r = new Random(seed);
        String before = g.fingerprint();
        for (int id : shuffledIds(g, r)) {
            List<Value> in = g.node(id).inputs();
            for (int i = 0; i < in.size(); i++) {
                for (int j = 0; j < id; j++) { // any earlier value of the same shape, other than the current one
                    for (Value v : g.node(j).outputs()) {
                        if (!v.shape().equals(in.get(i).shape()) || v.equals(in.get(i))) {
                            continue;
                        }
                        int pos = i;
                        int src = v.nodeId();
                        int idx = v.outputIndex();
                        Graph changed = tryCopy(g, Edit.operands(id, (ops, ng) -> {
                            List<Value> l = new ArrayList<>(ops);
                            l.set(pos, ng.node(src).outputs().get(idx));
                            return l;
                        }));
                        if (changed != null) {
                            Statistics.collect(in.size() > 1 && in.contains(v) ? "swap-like" : "resource");
                            assertNotEquals(before, changed.fingerprint(), "operand " + i + " of %" + id + " -> " + v);
                            return;
                        }
                    }
                }
            }
        }
    }

    @Property(tries = 200)
    void fingerprint_outputListChanged_differs(@ForAll long seed) {
        Graph g = RandomGraphs.build(seed);
        String before = g.fingerprint();
        Value extra = g.node(0).outputs().get(0);
        Graph appended = GraphEdits.copy(g, "c", Edit.outputs((outs, ng) -> {
            List<Value> l = new ArrayList<>(outs);
            l.add(ng.node(extra.nodeId()).outputs().get(0));
            return l;
        }));
        assertNotEquals(before, appended.fingerprint());
        if (g.outputs().size() > 1) {
            Graph dropped = GraphEdits.copy(g, "c", Edit.outputs((outs, ng) -> outs.subList(0, outs.size() - 1)));
            assertNotEquals(before, dropped.fingerprint());
            if (!g.outputs().get(0).equals(g.outputs().get(1))) {
                Graph swapped = GraphEdits.copy(g, "c", Edit.outputs((outs, ng) -> {
                    List<Value> l = new ArrayList<>(outs);
                    l.set(0, outs.get(1));
                    l.set(1, outs.get(0));
                    return l;
                }));
                assertNotEquals(before, swapped.fingerprint());
            }
        }
    }

    private static List<Integer> shuffledIds(Graph g, Random r) {
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < g.size(); i++) {
            ids.add(i);
        }
        java.util.Collections.shuffle(ids, r);
        return ids;
    }

    /** The edited copy, or null when the edit makes some node invalid. */
    private static Graph tryCopy(Graph g, Edit edit) {
        try {
            return GraphEdits.copy(g, g.name(), edit);
        } catch (RlxException | IllegalArgumentException e) {
            return null;
        }
    }

    // ---------------------------------------------------------------- sensitivity, one example per kind of change

    /** Builds {@code variant} of a small graph; variant 0 is the base. */
    private static Graph variant(int v) {
        Graph g = new Graph("base");
        Value x = g.input(v == 1 ? "x_renamed" : "x", v == 2 ? f32(2, 5) : v == 3 ? Shape.of(DType.F16, 2, 4) : f32(2, 4));
        Value y = g.input("y", v == 3 ? Shape.of(DType.F16, 2, 4) : v == 2 ? f32(2, 5) : f32(2, 4));
        Value z = g.input("z", v == 2 ? f32(2, 5) : v == 3 ? Shape.of(DType.F16, 2, 4) : f32(2, 4));
        Value c = g.constant(Tensor.ofBytes(x.shape().withDims(x.shape().dims()), constantBytes(x.shape(), v == 4)));
        Value d = v == 5 ? g.sub(y, x) : v == 6 ? g.sub(x, z) : g.sub(x, y); // operand order / source
        Value e = g.mul(d, c);
        Value s = g.softmax(e, v == 7 ? 0 : 1); // attribute
        Value red = g.reduceSum(s, v == 8, 1);
        Value cast = g.cast(red, v == 9 ? DType.BF16 : DType.F32);
        g.setOutputs(switch (v) {
            case 10 -> List.of(red, cast);
            case 11 -> List.of(red);
            default -> List.of(cast, red);
        });
        return g;
    }

    private static byte[] constantBytes(Shape s, boolean flipOneBit) {
        byte[] b = new byte[Math.toIntExact(s.byteSize())];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) i;
        }
        if (flipOneBit) {
            b[3] ^= 1;
        }
        return b;
    }

    @Example
    void fingerprint_eachSingleChange_givesDistinctFingerprint() {
        // 0 base, 1 input name, 2 shape, 3 dtype, 4 constant byte, 5 operand order, 6 operand source,
        // 7 attribute, 8 keepDims, 9 cast target, 10 output order, 11 output list
        Set<String> seen = new HashSet<>();
        for (int v = 0; v <= 11; v++) {
            assertTrue(seen.add(variant(v).fingerprint()), "variant " + v + " collides with an earlier one");
        }
        assertEquals(variant(0).fingerprint(), variant(0).fingerprint());
    }

    @Example
    void fingerprint_graphAndNodeNames_ignored() {
        Graph a = variant(0);
        Graph b = GraphEdits.copy(a, "renamed_graph", Edit.none());
        b.name(b.node(4).output(), "difference");
        b.name(b.outputs().get(0), "result");
        assertNotEquals(a.toString(), b.toString());
        assertEquals(a.fingerprint(), b.fingerprint());
    }

    /** Attributes that are easy to overlook: each pair must differ. */
    @Example
    void fingerprint_lessCommonAttributes() {
        IntFunction<Graph> attention = v -> {
            Graph g = new Graph("a");
            Value q = g.input("q", f32(1, 3, 8));
            Op.Attention spec = Op.Attention.of(2, 2, 4);
            spec = switch (v) {
                case 1 -> spec.withScale(0.25f);
                case 2 -> spec.withSoftcap(50f);
                case 3 -> spec.causal();
                case 4 -> spec.slidingWindow(2);
                case 5 -> spec.slidingWindow(3);
                case 6 -> spec.withScale(Math.nextUp(0.5f)); // one ulp away from the default 1/sqrt(4)
                default -> spec;
            };
            g.setOutputs(g.attention(q, q, q, spec));
            return g;
        };
        assertAllDistinct(7, attention, "attention variant");

        IntFunction<Graph> pool = v -> {
            Graph g = new Graph("p");
            Value x = g.input("x", f32(1, 1, 6, 6));
            Op.Pool p = Op.Pool.of(v == 1 ? Op.Pool.Kind.MAX : Op.Pool.Kind.AVG, 2, 2).withPads(1, 1);
            p = switch (v) {
                case 2 -> p.withCountIncludePad(false);
                case 3 -> p.withCeilMode(true);
                case 4 -> p.withStrides(1, 2);
                case 5 -> p.withPads(1, 1, 0, 0);
                default -> p;
            };
            g.setOutputs(g.pool(x, p));
            return g;
        };
        assertAllDistinct(6, pool, "pool variant");

        IntFunction<Graph> custom = v -> {
            Graph g = new Graph("c");
            Value x = g.input("x", f32(2));
            Attrs attrs = switch (v) {
                case 1 -> Attrs.of("k", 4L);
                case 2 -> Attrs.of("k", 3.0);
                case 3 -> Attrs.of("k", List.of(3L));
                case 4 -> Attrs.of("k", List.of(3.0));
                case 5 -> Attrs.of("k", "3");
                case 6 -> Attrs.of("j", 3L);
                case 7 -> Attrs.EMPTY;
                case 8 -> Attrs.of("k", 3L, "b", true);
                case 9 -> Attrs.of("k", 3L, "b", false);
                default -> Attrs.of("k", 3L);
            };
            g.setOutputs(g.custom(v == 10 ? "other" : "op", attrs, List.of(v == 11 ? f32(3) : f32(2)), x));
            return g;
        };
        assertAllDistinct(12, custom, "custom variant");

        IntFunction<Graph> loops = v -> {
            Graph g = new Graph("w");
            Value x = g.input("x", f32(3));
            Graph cond = ControlFlowShapeTest.lessThan("cond", v == 1 ? 5f : 10f, f32(3));
            Graph body = new Graph("body");
            Value b = body.input("c", f32(3));
            body.setOutputs(v == 2 ? body.exp(b) : body.relu(b));
            g.setOutputs(g.whileLoop(cond, body, v == 3 ? 7 : -1, x));
            return g;
        };
        assertAllDistinct(4, loops, "while variant");
    }

    @Example
    void fingerprint_subgraphNamesIgnored_subgraphContentCounts() {
        Graph a = variant(0);
        IntFunction<Graph> withIf = v -> {
            Graph g = new Graph("i");
            Value p = g.input("p", Shape.scalar(DType.BOOL));
            Value x = g.input("x", f32(2));
            Graph t = new Graph(v == 1 ? "then_renamed" : "then");
            t.setOutputs(v == 2 ? t.tanh(t.input("a", f32(2))) : t.relu(t.input("a", f32(2))));
            Graph e = new Graph("else");
            Value ea = e.input("a", f32(2));
            Value eo = v == 3 ? e.add(ea, ea) : e.neg(ea);
            e.setOutputs(eo);
            if (v == 4) {
                e.name(eo, "display");
            }
            g.setOutputs(g.ifElse(p, t, e, x));
            return g;
        };
        assertEquals(withIf.apply(0).fingerprint(), withIf.apply(1).fingerprint(), "subgraph name");
        assertEquals(withIf.apply(0).fingerprint(), withIf.apply(4).fingerprint(), "display name in a subgraph");
        assertNotEquals(withIf.apply(0).fingerprint(), withIf.apply(2).fingerprint());
        assertNotEquals(withIf.apply(0).fingerprint(), withIf.apply(3).fingerprint());
        assertNotEquals(a.fingerprint(), withIf.apply(0).fingerprint());
    }

    @Example
    void fingerprint_isSha256OfVersionAndNamelessCanonicalBytes() throws Exception {
        Graph g = new Graph("tiny");
        Value x = g.input("x", f32(2));
        g.setOutputs(g.name(g.relu(x), "activation"));
        // Written from GraphSerializer's grammar, with the graph name and node names left out (empty name,
        // no name flag), preceded by the u16 version.
        byte[] canonical = new ByteWriter().u16(GraphSerializer.VERSION).str("").i32(2)
                .inputNode("x", "F32", 2)
                .str("Unary").str("RELU").i32(1).ref(0, 0).u8(0)
                .i32(1).ref(1, 0)
                .bytes();
        byte[] sha = java.security.MessageDigest.getInstance("SHA-256").digest(canonical);
        assertEquals(java.util.HexFormat.of().formatHex(sha), g.fingerprint());
    }

    private static void assertAllDistinct(int n, IntFunction<Graph> make, String what) {
        Set<String> seen = new HashSet<>();
        for (int v = 0; v < n; v++) {
            assertTrue(seen.add(make.apply(v).fingerprint()), what + " " + v + " collides with an earlier one");
        }
    }
}
