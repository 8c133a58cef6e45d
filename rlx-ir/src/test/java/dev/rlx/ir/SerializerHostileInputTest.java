package dev.rlx.ir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.rlx.ir.limits.LimitExceededException;
import dev.rlx.ir.limits.Limits;
import java.util.Arrays;
import java.util.Random;
import java.util.function.Consumer;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;

/**
 * fromBytes on untrusted input: whatever the bytes, the only failure is a {@link GraphFormatException} whose
 * message gives the offset - never an index, null-pointer, arithmetic, negative-size or out-of-memory error.
 */
class SerializerHostileInputTest {

    /** Asserts {@code data} is rejected with a GraphFormatException naming an offset inside the input. */
    static GraphFormatException assertMalformed(byte[] data, String... mentions) {
        try {
            Graph g = GraphSerializer.fromBytes(data);
            throw new AssertionError("accepted malformed bytes as\n" + g);
        } catch (GraphFormatException e) {
            String m = e.getMessage();
            assertTrue(m.contains("offset " + e.offset()), m);
            assertTrue(e.offset() >= 0 && e.offset() <= data.length, () -> "offset out of the input: " + m);
            for (String s : mentions) {
                assertTrue(m.contains(s), () -> "message should mention '" + s + "': " + m);
            }
            return e;
        } catch (AssertionError e) {
            throw e;
        } catch (Throwable t) {
            return fail("fromBytes must only throw GraphFormatException but threw " + t, t);
        }
    }

    /** Parses {@code data} or rejects it with a GraphFormatException; a parsed graph must be usable. */
    static boolean parsesOrRejectsCleanly(byte[] data) {
        Graph g;
        try {
            g = GraphSerializer.fromBytes(data);
        } catch (GraphFormatException e) {
            assertTrue(e.getMessage().contains("offset " + e.offset()), e.getMessage());
            assertTrue(e.offset() >= 0 && e.offset() <= data.length, e.getMessage());
            return false;
        } catch (LimitExceededException e) { // a mutated dim or count over the default limits: typed, named
            assertTrue(e.asked() > e.limit(), e.getMessage());
            return false;
        } catch (Throwable t) {
            return fail("fromBytes must only throw GraphFormatException or LimitExceededException but threw " + t, t);
        }
        // Whatever was accepted is a well-formed graph: it prints, fingerprints and re-serializes.
        byte[] again = GraphSerializer.toBytes(g);
        assertEquals(g.toString(), GraphSerializer.fromBytes(again).toString());
        g.fingerprint();
        return true;
    }

    private static byte[] graph(Consumer<ByteWriter> body) {
        ByteWriter w = new ByteWriter().header();
        body.accept(w);
        return w.bytes();
    }

    // ---------------------------------------------------------------- truncation, trailing bytes, mutation

    @Example
    void truncated_atEveryOffset_rejected() {
        byte[] full = GraphSerializer.toBytes(SampleGraphs.allOps());
        for (int len = 0; len < full.length; len++) {
            assertMalformed(Arrays.copyOf(full, len));
        }
    }

    @Example
    void trailingBytes_rejected() {
        byte[] full = GraphSerializer.toBytes(GraphSmokeTest.hello());
        byte[] longer = Arrays.copyOf(full, full.length + 3);
        assertEquals(full.length, assertMalformed(longer, "trailing").offset());
    }

    @Property(tries = 400)
    void randomMutations_parseOrRejectCleanly(@ForAll long seed, @ForAll @IntRange(min = 1, max = 6) int edits) {
        Random r = new Random(seed);
        byte[] data = GraphSerializer.toBytes(r.nextInt(4) == 0 ? SampleGraphs.allOps() : RandomGraphs.build(seed));
        int[] interesting = {0, 1, 2, 0x7F, 0x80, 0xFF, 0x40};
        int[] interestingInts = {Integer.MAX_VALUE, Integer.MIN_VALUE, -1, 0, 1, 64, 65, 1 << 20, 0x7FFFFFF0};
        for (int e = 0; e < edits; e++) {
            int pos = 6 + r.nextInt(data.length - 6); // past magic and version, which have their own tests
            switch (r.nextInt(5)) {
                case 0 -> data[pos] ^= (byte) (1 << r.nextInt(8));
                case 1 -> data[pos] = (byte) interesting[r.nextInt(interesting.length)];
                case 2 -> {
                    int v = interestingInts[r.nextInt(interestingInts.length)];
                    for (int i = 0; i < 4 && pos + i < data.length; i++) {
                        data[pos + i] = (byte) (v >>> (24 - 8 * i));
                    }
                }
                case 3 -> { // delete a byte
                    byte[] d = new byte[data.length - 1];
                    System.arraycopy(data, 0, d, 0, pos);
                    System.arraycopy(data, pos + 1, d, pos, data.length - pos - 1);
                    data = d.length > 6 ? d : data;
                }
                default -> { // insert a byte
                    byte[] d = new byte[data.length + 1];
                    System.arraycopy(data, 0, d, 0, pos);
                    d[pos] = (byte) r.nextInt(256);
                    System.arraycopy(data, pos, d, pos + 1, data.length - pos);
                    data = d;
                }
            }
        }
        Statistics.collect(parsesOrRejectsCleanly(data) ? "parsed" : "rejected");
    }

    @Property(tries = 200)
    void randomBytesAfterHeader_rejectedCleanly(@ForAll @Size(max = 64) byte[] tail) {
        byte[] data = new ByteWriter().header().bytes();
        byte[] all = Arrays.copyOf(data, data.length + tail.length);
        System.arraycopy(tail, 0, all, data.length, tail.length);
        parsesOrRejectsCleanly(all);
    }

    // ---------------------------------------------------------------- header

    @Example
    void badMagicOrVersion_rejected() {
        assertMalformed(new byte[0], "magic");
        assertMalformed("RLXF".getBytes(), "magic");
        assertMalformed(new ByteWriter().raw('R', 'L', 'X', 'G').bytes(), "version");
        assertEquals(4, assertMalformed(new ByteWriter().raw('R', 'L', 'X', 'G').u16(2).str("g").i32(0).i32(0)
                .bytes(), "version 2").offset());
        assertMalformed(new ByteWriter().raw('R', 'L', 'X', 'G').u16(0).bytes(), "version 0");
    }

    @Example
    void minimalGraph_accepted_withoutOutputs() {
        // the format allows a graph without outputs (the verifier, not the reader, rejects it)
        Graph g = GraphSerializer.fromBytes(graph(w -> w.str("empty").i32(0).i32(0)));
        assertEquals("empty", g.name());
        assertEquals(0, g.size());
    }

    // ---------------------------------------------------------------- huge and negative counts

    @Example
    void hugeOrNegativeCounts_rejected() {
        assertMalformed(graph(w -> w.str("g").i32(Integer.MAX_VALUE)), "node count");
        assertMalformed(graph(w -> w.str("g").i32(-1)), "node count");
        assertMalformed(graph(w -> w.i32(Integer.MAX_VALUE).raw('g')), "graph name length");
        assertMalformed(graph(w -> w.i32(-5)), "graph name length");
        assertMalformed(graph(w -> w.str("g").i32(1).str("Input").str("x").str("F32").i32(Integer.MAX_VALUE)), "rank");
        assertMalformed(graph(w -> w.str("g").i32(1).str("Input").str("x").str("F32").i32(-1)), "rank");
        assertMalformed(graph(w -> w.str("g").i32(0).i32(0x40000000)), "output count");
        assertMalformed(graph(w -> w.str("g").i32(1).inputNode("x", "F32").i32(1 << 30).ref(0, 0)), "output count");
        assertMalformed(graph(w -> w.str("g").i32(2).inputNode("x", "F32", 2)
                .str("Unary").str("RELU").i32(Integer.MAX_VALUE)), "inputs of node %1");
        assertMalformed(graph(w -> w.str("g").i32(2).inputNode("x", "F32", 2)
                .str("Reshape").i32(Integer.MAX_VALUE)), "Reshape.dims");
        assertMalformed(graph(w -> w.str("g").i32(1).str("Custom").str("op").i32(Integer.MAX_VALUE)), "Custom.attrs");
        assertMalformed(graph(w -> w.str("g").i32(1).str("Custom").str("op").i32(1).str("k").u8(4)
                .i32(Integer.MAX_VALUE)), "Custom.attrs");
        assertMalformed(graph(w -> w.str("g").i32(1).str("Custom").str("op").i32(0).i32(0x7FFFFFFF)), "Custom.outputs");
        assertMalformed(graph(w -> w.str("g").i32(1).str("Constant").shape("F32", 2).i32(Integer.MAX_VALUE)),
                "Constant.value bytes");
    }

    @Example
    void rankAboveLimit_rejectedEvenWhenTheBytesAreThere() {
        int[] dims = new int[65];
        Arrays.fill(dims, 1);
        assertMalformed(graph(w -> w.str("g").i32(1).str("Input").str("x").shape("F32", dims).i32(0).u8(0)),
                "rank 65 exceeds 64");
    }

    @Example
    void badShapes_rejected() {
        assertMalformed(graph(w -> w.str("g").i32(1).inputNode("x", "F32", 2, -3)), "negative");
        assertMalformed(graph(w -> w.str("g").i32(1).inputNode("x", "I64", 1 << 30, 1 << 30, 1 << 30)), "overflows");
        assertMalformed(graph(w -> w.str("g").i32(1).inputNode("x", "F33", 2)), "unknown dtype 'F33'");
        assertMalformed(graph(w -> w.str("g").i32(1).inputNode("x", "f32", 2)), "unknown dtype 'f32'");
        assertMalformed(graph(w -> w.str("g").i32(1).inputNode("x", "", 2)), "unknown dtype");
    }

    @Example
    void tensorByteCountMismatch_rejected() {
        assertMalformed(graph(w -> w.str("g").i32(1).str("Constant").shape("F32", 2).i32(7).raw(0, 0, 0, 0, 0, 0, 0)
                .i32(0).u8(0).i32(1).ref(0, 0)), "7 data bytes", "needs 8");
        // a shape far larger than the input cannot be satisfied by the remaining bytes
        assertMalformed(graph(w -> w.str("g").i32(1).str("Constant").shape("F64", 65536, 65536).i32(0)
                .i32(0).u8(0)), "needs");
    }

    // ---------------------------------------------------------------- names, enums, flags

    @Example
    void unknownOpNames_rejected() {
        for (String name : new String[] {"Bogus", "", "Kind", "Graph", "Op", "dev.rlx.ir.Op$Input", "input", "Mask"}) {
            assertMalformed(graph(w -> w.str("g").i32(1).str(name).i32(0).u8(0)), "unknown op '" + name + "'");
        }
    }

    @Example
    void badEnumNames_rejected() {
        assertMalformed(graph(w -> w.str("g").i32(2).inputNode("x", "F32", 2).str("Unary").str("FOO")),
                "unknown UnaryKind 'FOO'");
        assertMalformed(graph(w -> w.str("g").i32(2).inputNode("x", "F32", 2).str("Unary").str("relu")),
                "unknown UnaryKind 'relu'");
        assertMalformed(graph(w -> w.str("g").i32(2).inputNode("x", "F32", 2).str("Cast").str("F33")),
                "unknown DType 'F33'");
        assertMalformed(graph(w -> w.str("g").i32(2).inputNode("x", "F32", 2).str("ArgReduce").str("ARGMED")),
                "unknown Kind 'ARGMED'");
        assertMalformed(graph(w -> w.str("g").i32(2).inputNode("x", "F32", 1, 2, 4).str("Attention")
                .i32(2).i32(1).i32(2).str("BSHD").str("TRIANGLE")), "unknown Mask 'TRIANGLE'");
    }

    @Example
    void badBooleans_rejected() {
        assertMalformed(graph(w -> w.str("g").i32(1).str("Input").str("x").shape("F32", 2).i32(0).u8(2)),
                "name flag", "2");
        assertMalformed(graph(w -> w.str("g").i32(2).inputNode("x", "F32", 2, 3).str("Reduce").str("SUM")
                .i32(1).i32(1).u8(0xFF)), "keepDims", "-1");
        assertMalformed(graph(w -> w.str("g").i32(1).str("Custom").str("op").i32(1).str("k").u8(2).u8(3)),
                "must be 0 or 1");
    }

    @Example
    void badAttrs_rejected() {
        assertMalformed(graph(w -> w.str("g").i32(1).str("Custom").str("op").i32(1).str("k").u8(9).i64(0)),
                "unknown attribute tag 9");
        assertMalformed(graph(w -> w.str("g").i32(1).str("Custom").str("op").i32(2).str("k").u8(0).i64(1)
                .str("k").u8(0).i64(2)), "duplicate attribute 'k'");
    }

    // ---------------------------------------------------------------- references

    @Example
    void forwardAndSelfReferences_rejectedAsCycles() {
        assertMalformed(graph(w -> w.str("g").i32(3).inputNode("x", "F32", 2)
                .str("Unary").str("RELU").i32(1).ref(2, 0).u8(0)
                .str("Unary").str("EXP").i32(1).ref(1, 0).u8(0)), "input 0 of node %1", "%2", "not defined before it");
        assertMalformed(graph(w -> w.str("g").i32(2).inputNode("x", "F32", 2)
                .str("Unary").str("RELU").i32(1).ref(1, 0).u8(0)), "%1", "not defined before it");
    }

    @Example
    void danglingReferences_rejected() {
        assertMalformed(graph(w -> w.str("g").i32(2).inputNode("x", "F32", 2)
                .str("Binary").str("ADD").i32(2).ref(0, 0).ref(-1, 0).u8(0)), "input 1 of node %1", "%-1");
        assertMalformed(graph(w -> w.str("g").i32(2).inputNode("x", "F32", 2)
                .str("Unary").str("RELU").i32(1).ref(0, 1).u8(0)), "output 1 of %0");
        assertMalformed(graph(w -> w.str("g").i32(2).inputNode("x", "F32", 2)
                .str("Unary").str("RELU").i32(1).ref(0, -1).u8(0)), "output -1 of %0");
        assertMalformed(graph(w -> w.str("g").i32(1).inputNode("x", "F32", 2).i32(1).ref(7, 0)),
                "graph output 0", "%7", "dangling");
        assertMalformed(graph(w -> w.str("g").i32(1).inputNode("x", "F32", 2).i32(1).ref(0, 3)), "output 3 of %0");
    }

    // ---------------------------------------------------------------- semantic rejections surface as format errors

    @Example
    void invalidOpsAndGraphs_rejectedAsFormatErrors() {
        assertMalformed(graph(w -> w.str("g").i32(2).inputNode("x", "F32", 4)
                .str("Slice").i32(0).i32(0).i32(1).i32(0).i32(1).ref(0, 0).u8(0)), "node %1", "step");
        assertMalformed(graph(w -> w.str("g").i32(2).inputNode("x", "F32", 2, 3)
                .str("Reduce").str("SUM").i32(2).i32(1).i32(0).u8(0).i32(1).ref(0, 0).u8(0)), "node %1", "sorted");
        assertMalformed(graph(w -> w.str("g").i32(2).inputNode("x", "F32", 2).inputNode("x", "F32", 2)),
                "node %1", "already has an input named 'x'");
        assertMalformed(graph(w -> w.str("g").i32(1).str("Custom").str("op").i32(0).i32(0).u8(0)), "at least one output");
        assertMalformed(graph(w -> w.str("  ").i32(0).i32(0)), "graph name must be non-empty");
        assertMalformed(graph(w -> w.str("g").i32(2).inputNode("x", "F32", 2)
                .str("LayerNorm").i32(0).f32(Float.NaN)), "eps");
        assertMalformed(graph(w -> w.str("g").i32(3).inputNode("x", "F32", 2).inputNode("y", "I32", 2)
                .str("Binary").str("ADD").i32(2).ref(0, 0).ref(1, 0).u8(0)), "node %2", "f32[2]", "i32[2]");
        assertMalformed(graph(w -> w.str("g").i32(2).inputNode("x", "F32", 2)
                .str("Unary").str("RELU").i32(0).u8(0)), "node %1", "expected 1 input");
    }

    @Example
    void deeplyNestedSubgraphs_rejected() {
        // Each level: a graph with a bool input and an If whose then-branch is the next level. The reader must
        // stop at its depth limit before it ever needs the (absent) else-branches.
        ByteWriter w = new ByteWriter().header();
        for (int depth = 0; depth < 40; depth++) {
            w.str("level" + depth).i32(2).inputNode("p", "BOOL").str("If");
        }
        assertMalformed(w.bytes(), "nested deeper than 32");
    }

    @Example
    void validCraftedGraph_parses() {
        // a sanity check of the crafted encodings used above
        byte[] data = graph(w -> w.str("g").i32(3).inputNode("x", "F32", 2, 3)
                .str("Reduce").str("SUM").i32(2).i32(0).i32(1).u8(1).i32(1).ref(0, 0).u8(0)
                .str("Slice").i32(0).i32(0).i32(1).i32(1).i32(1).ref(1, 0).u8(1).str("s")
                .i32(2).ref(2, 0).ref(0, 0));
        Graph g = GraphSerializer.fromBytes(data);
        assertEquals(Shape.of(DType.F32, 1, 1), g.outputs().get(0).shape());
        assertEquals("s", g.node(2).name());
    }

    // ---------------------------------------------------------------- limits (issue 21)

    /** A graph x[8, 1234] -> relu, serialized; dim 1234 is the only 0x000004D2 in it. */
    private static byte[] smallGraphBytes() {
        Graph g = new Graph("small");
        g.setOutputs(g.relu(g.input("x", Shape.of(DType.F32, 8, 1234))));
        return GraphSerializer.toBytes(g);
    }

    // Regression: one flipped bit (bit 30 of a dim) made a graph that asked for 34 GB when compiled; the
    // reader accepted it.
    @Example
    void flippedBitInADim_refusedByTheTensorLimit() {
        byte[] b = smallGraphBytes();
        int at = -1;
        for (int i = 0; i + 4 <= b.length; i++) {
            if (b[i] == 0 && b[i + 1] == 0 && b[i + 2] == 4 && b[i + 3] == (byte) 0xD2) {
                at = i;
            }
        }
        assertTrue(at > 0, "dim 1234 not found");
        b[at] |= 0x40;
        Limits limits = Limits.builder().tensorBytes(1L << 30).build();
        LimitExceededException e = org.junit.jupiter.api.Assertions.assertThrows(LimitExceededException.class,
                () -> GraphSerializer.fromBytes(b, limits));
        assertEquals(Limits.Kind.TENSOR_BYTES, e.kind());
        assertEquals(4L * 8 * ((1L << 30) + 1234), e.asked());
        assertTrue(e.getMessage().contains("node %0"), e.getMessage());
    }

    @Example
    void nodeCountOverTheLimit_refusedBeforeReadingTheNodes() {
        byte[] b = smallGraphBytes();
        LimitExceededException e = org.junit.jupiter.api.Assertions.assertThrows(LimitExceededException.class,
                () -> GraphSerializer.fromBytes(b, Limits.builder().graphNodes(1).build()));
        assertEquals(Limits.Kind.GRAPH_NODES, e.kind());
        assertEquals(2, e.asked());
        assertEquals("small", GraphSerializer.fromBytes(b, Limits.builder().graphNodes(2).build()).name());
    }

    /** The tensor limit admits a graph exactly when its largest value fits. */
    @Property(tries = 50)
    void tensorLimit_admitsExactlyGraphsWhoseValuesFit(@ForAll @IntRange(min = 1, max = 50) int n,
                                                       @ForAll @IntRange(min = 0, max = 250) int limit) {
        Graph g = new Graph("p");
        g.setOutputs(g.relu(g.input("x", Shape.of(DType.F32, n))));
        byte[] b = GraphSerializer.toBytes(g);
        Limits l = Limits.builder().tensorBytes(limit).build();
        if (4L * n <= limit) {
            assertEquals(g.toString(), GraphSerializer.fromBytes(b, l).toString());
        } else {
            assertEquals(4L * n, org.junit.jupiter.api.Assertions.assertThrows(LimitExceededException.class,
                    () -> GraphSerializer.fromBytes(b, l)).asked());
        }
    }
}
