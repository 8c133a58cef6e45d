package dev.rlx.ir;

import static dev.rlx.ir.Check.f32;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/** toBytes / fromBytes round trips: bytes, fingerprint, printed text and verification are preserved. */
class SerializerRoundTripTest {

    /** Asserts bytes -> graph -> bytes is the identity and that the read graph matches {@code g}. */
    static Graph assertRoundTrip(Graph g) {
        byte[] bytes = GraphSerializer.toBytes(g);
        Graph back = GraphSerializer.fromBytes(bytes);
        assertArrayEquals(bytes, GraphSerializer.toBytes(back));
        assertEquals(g.fingerprint(), back.fingerprint());
        assertEquals(g.toString(), back.toString());
        assertEquals(g.verify(), back.verify());
        assertEquals(g.name(), back.name());
        assertEquals(g.inputShapes(), back.inputShapes());
        assertEquals(g.outputShapes(), back.outputShapes());
        return back;
    }

    @Property(tries = 200)
    void roundTrip_randomGraphs(@ForAll long seed, @ForAll boolean displayNames) {
        assertRoundTrip(RandomGraphs.build(seed, "g" + (seed & 0xFF), displayNames, true));
    }

    @Property(tries = 50)
    void roundTrip_readGraphRoundTripsAgain(@ForAll long seed) {
        Graph once = GraphSerializer.fromBytes(GraphSerializer.toBytes(RandomGraphs.build(seed)));
        assertRoundTrip(once);
    }

    @Example
    void roundTrip_allOps_coversEveryOpKindAndRecord() {
        Graph g = SampleGraphs.allOps();
        Set<OpKind> kinds = EnumSet.noneOf(OpKind.class);
        Set<Class<?>> records = new HashSet<>();
        collect(g, kinds, records);
        assertEquals(EnumSet.allOf(OpKind.class), kinds, "the sample graph should use every op kind");
        assertEquals(Set.of(Op.class.getPermittedSubclasses()), records, "and every op record");
        g.verify(); // valid (it only warns, e.g. about a while cond ignoring a carry)
        assertRoundTrip(g);
    }

    private static void collect(Graph g, Set<OpKind> kinds, Set<Class<?>> records) {
        for (Node n : g.nodes()) {
            kinds.add(n.kind());
            records.add(n.op().getClass());
            for (OpFields.Field f : OpFields.of(n.op()).fields()) {
                if (f.type() == OpFields.FieldType.GRAPH) {
                    collect((Graph) f.get(n.op()), kinds, records);
                }
            }
        }
    }

    @Example
    void roundTrip_constantsOfEveryDtype_keepTheirBytes() {
        Random r = new Random(7);
        for (DType t : DType.values()) {
            for (int[] dims : List.of(new int[0], new int[] {3}, new int[] {2, 0}, new int[] {2, 2})) {
                Graph g = new Graph("c");
                Tensor value = RandomGraphs.tensor(Shape.of(t, dims), r);
                g.setOutputs(g.constant(value));
                Graph back = assertRoundTrip(g);
                assertEquals(value, ((Op.Constant) back.node(0).op()).value(), t + " " + value.shape());
            }
        }
    }

    @Example
    void roundTrip_specialFloatBitsInConstants() {
        // NaN payloads, -0.0, infinities and subnormals survive bit for bit
        float[] f = {Float.intBitsToFloat(0x7FC00001), -0f, Float.NEGATIVE_INFINITY, Float.MIN_VALUE};
        Graph g = new Graph("c");
        Tensor t = Tensor.of(f, 4);
        g.setOutputs(g.constant(t));
        Graph back = assertRoundTrip(g);
        assertArrayEquals(t.bytes(), ((Op.Constant) back.node(0).op()).value().bytes());
    }

    @Example
    void roundTrip_customAttrsOfEveryType() {
        Graph g = new Graph("c");
        Attrs attrs = SampleGraphs.everyAttrType();
        g.setOutputs(g.custom("op", attrs, List.of(f32(1)), g.input("x", f32(1))));
        Graph back = assertRoundTrip(g);
        Attrs read = ((Op.Custom) back.node(1).op()).attrs();
        assertEquals(attrs, read);
        assertEquals(attrs.asMap().keySet().stream().toList(), read.asMap().keySet().stream().toList());
        assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(read.getDouble("double")));
        assertEquals("héllo \u2603 \uD83D\uDE00", read.getString("text"));
        assertEquals(List.of(), read.getLongs("none"));
    }

    @Example
    void roundTrip_displayNamesAndSubgraphNamesKept() {
        Graph g = SampleGraphs.allOps();
        Graph back = assertRoundTrip(g);
        Node mm = back.nodes().stream().filter(n -> "projection".equals(n.name())).findFirst().orElseThrow();
        assertEquals(OpKind.MATMUL, mm.kind());
        Node tk = back.nodes().stream().filter(n -> "top_indices".equals(n.name())).findFirst().orElseThrow();
        assertEquals(OpKind.TOP_K, tk.kind());
        Op.If iff = (Op.If) back.nodes().stream().filter(n -> n.kind() == OpKind.IF).findFirst().orElseThrow().op();
        assertEquals("then", iff.thenBranch().name());
        assertEquals("inner", iff.thenBranch().node(1).name());
    }

    @Example
    void toBytes_matchesTheDocumentedLayout() {
        Graph g = new Graph("tiny");
        Value x = g.input("x", f32(2));
        g.setOutputs(g.name(g.relu(x), "act"));
        byte[] expected = new ByteWriter().header().str("tiny").i32(2)
                .inputNode("x", "F32", 2)
                .str("Unary").str("RELU").i32(1).ref(0, 0).u8(1).str("act")
                .i32(1).ref(1, 0)
                .bytes();
        assertArrayEquals(expected, GraphSerializer.toBytes(g));
        assertEquals(g.toString(), GraphSerializer.fromBytes(expected).toString());
    }
}
