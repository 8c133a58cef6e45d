package dev.rlx.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.Attrs;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LegalizationTest {
    private static final Shape V = Shape.of(DType.F32, 2);
    private static final String CUSTOM_WITH_KERNEL = "legalize_test_clip";
    private static final String CUSTOM_NO_KERNEL = "legalize_test_nokernel";

    @AfterEach
    void cleanUp() {
        BackendRegistry.global().unregister(Device.TPU);
        OpRegistry.global().remove(CUSTOM_WITH_KERNEL);
        OpRegistry.global().remove(CUSTOM_NO_KERNEL);
    }

    private static Graph cumsumBranch(String name) {
        Graph b = new Graph(name);
        Value a = b.input("a", V);
        b.setOutputs(b.name(b.cumsum(a, -1), name + "_cumsum"));
        return b;
    }

    /**
     * A graph with CUMSUM (a primitive with no decomposition, so a backend without it cannot run it) at the top
     * level and inside If, While and Scan subgraphs.
     */
    private static Graph nested() {
        Graph g = new Graph("nested");
        Value x = g.input("x", V);
        Value p = g.input("p", Shape.scalar(DType.BOOL));
        Value top = g.name(g.cumsum(x, -1), "sums");

        Graph otherwise = new Graph("else");
        otherwise.setOutputs(otherwise.neg(otherwise.input("a", V)));
        Value branched = g.ifElse(p, cumsumBranch("then"), otherwise, top).get(0);

        Graph cond = new Graph("cond");
        Value cx = cond.input("c", V);
        cond.setOutputs(cond.gt(cond.reduceSum(cx, false), cond.scalar(0f)));
        Value looped = g.whileLoop(cond, cumsumBranch("body"), 4, branched).get(0);

        Graph body = new Graph("scan_body");
        Value carry = body.input("carry", V);
        Value xt = body.input("xt", V);
        Value sum = body.add(carry, xt);
        body.setOutputs(sum, body.name(body.cumsum(sum, -1), "scan_cumsum"));
        Value xs = g.input("xs", Shape.of(DType.F32, 3, 2));
        List<Value> scanned = g.scan(body, 3, 1, false, looped, xs);
        g.setOutputs(scanned.get(0), scanned.get(1));
        return g;
    }

    @Test
    void compile_unsupportedKinds_listsEveryOffenderIncludingSubgraphsBeforeCompiling() {
        FakeBackend fake = FakeBackend.without(Device.TPU, OpKind.CUMSUM);
        try (var reg = FakeBackend.install(fake); Session s = new Session(Device.TPU)) {
            Graph g = nested();
            UnsupportedOpException e = assertThrows(UnsupportedOpException.class, () -> s.compile(g));

            assertEquals(0, fake.compileCalls.get(), "the backend must not see a graph it cannot run");
            assertEquals("fake-tpu", e.backend());
            assertEquals(List.of("sums", "then_cumsum", "body_cumsum", "scan_cumsum"),
                    e.offenders().stream().map(UnsupportedOpException.Offender::name).toList());
            assertTrue(e.offenders().stream().allMatch(o -> o.kind() == OpKind.CUMSUM
                    && "no cumsum kernel".equals(o.reason())), e.getMessage());
            assertEquals("", e.offenders().get(0).path());
            assertTrue(e.offenders().get(1).path().endsWith(".then/"), e.offenders().get(1).path());
            assertTrue(e.offenders().get(2).path().endsWith(".body/"), e.offenders().get(2).path());
            assertTrue(e.offenders().get(3).path().endsWith(".body/"), e.offenders().get(3).path());

            String m = e.getMessage();
            assertTrue(m.contains("fake-tpu") && m.contains("4 nodes") && m.contains("CUMSUM"), m);
            for (String name : List.of("'sums'", "'then_cumsum'", "'body_cumsum'", "'scan_cumsum'")) {
                assertTrue(m.contains(name), m + " lacks " + name);
            }
        }
    }

    /** Every node of {@code g} and of its bodies, recursively. */
    private static java.util.stream.Stream<dev.rlx.ir.Node> allNodes(Graph g) {
        return g.nodes().stream().flatMap(n -> java.util.stream.Stream.concat(java.util.stream.Stream.of(n),
                dev.rlx.opt.Subgraphs.bodies(n.op()).stream().flatMap(LegalizationTest::allNodes)));
    }

    @Test
    void compile_refusedCompositeWithADecomposition_runsAsPrimitivesEvenInsideBodies() {
        FakeBackend fake = FakeBackend.without(Device.TPU, OpKind.SOFTMAX, OpKind.FUSED, OpKind.FUSED_MATMUL);
        Graph g = new Graph("softmaxes");
        Value x = g.input("x", V);
        Graph then = new Graph("then");
        then.setOutputs(then.softmax(then.input("a", V), -1));
        Graph otherwise = new Graph("else");
        otherwise.setOutputs(otherwise.neg(otherwise.input("a", V)));
        Value p = g.input("p", Shape.scalar(DType.BOOL));
        g.setOutputs(g.ifElse(p, then, otherwise, g.softmax(x, -1)).get(0));
        try (var reg = FakeBackend.install(fake); Session s = new Session(Device.TPU)) {
            assertTrue(s.supportsGraph(g), s.check(g).toString());
            try (CompiledGraph c = s.compile(g)) {
                Graph compiled = fake.lastRequest.graph();
                assertTrue(allNodes(compiled).noneMatch(n -> n.kind() == OpKind.SOFTMAX),
                        "the backend sees no softmax, not even in the branch:\n" + dev.rlx.ir.GraphPrinter.print(compiled));
                assertTrue(allNodes(compiled).anyMatch(n -> n.kind() == OpKind.REDUCE), "it sees the decomposition");
                assertEquals(List.of("x", "p"), c.inputNames());
            }
        }
    }

    @Test
    void compile_severalMissingKinds_listsEachKind() {
        FakeBackend fake = FakeBackend.without(Device.TPU, OpKind.WHILE, OpKind.SCAN, OpKind.MATMUL);
        try (var reg = FakeBackend.install(fake); Session s = new Session(Device.TPU)) {
            Graph g = nested();
            Value w = g.param("w", Shape.of(DType.F32, 2, 2));
            g.setOutputs(g.matmul(g.reshape(g.outputs().get(0), 1, 2), w)); // earlier outputs become dead: still listed
            UnsupportedOpException e = assertThrows(UnsupportedOpException.class, () -> s.compile(g));
            assertEquals(0, fake.compileCalls.get());
            assertEquals(List.of(OpKind.WHILE, OpKind.SCAN, OpKind.MATMUL),
                    e.offenders().stream().map(UnsupportedOpException.Offender::kind).toList());
            String m = e.getMessage();
            assertTrue(m.contains("3 nodes of kinds [MATMUL, WHILE, SCAN]"), m);
            assertTrue(m.contains("'while'") && m.contains("'scan'") && m.contains("'matmul'"), m);
        }
    }

    @Test
    void compile_singleOffender_usesSingularWording() {
        FakeBackend fake = FakeBackend.without(Device.TPU, OpKind.UNARY);
        try (var reg = FakeBackend.install(fake); Session s = new Session(Device.TPU)) {
            Graph g = new Graph("one");
            g.setOutputs(g.relu(g.input("x", V)));
            UnsupportedOpException e = assertThrows(UnsupportedOpException.class, () -> s.compile(g));
            assertTrue(e.getMessage().contains("cannot run 1 node of kind [UNARY]"), e.getMessage());
            assertTrue(e.getMessage().contains("%1 UNARY 'relu'"), e.getMessage());
            assertEquals(1, e.offenders().get(0).nodeId());
        }
    }

    @Test
    void compile_customOpWithoutKernelForTheDevice_isRejectedWithTheReason() {
        OpRegistry ops = OpRegistry.global();
        ops.register(CUSTOM_WITH_KERNEL, (in, a) -> List.of(in.get(0)), Device.TPU, (in, out, a) -> { });
        ops.register(CUSTOM_NO_KERNEL, (in, a) -> List.of(in.get(0)), Device.CPU, (in, out, a) -> { });
        FakeBackend fake = FakeBackend.full(Device.TPU, false);
        try (var reg = FakeBackend.install(fake); Session s = new Session(Device.TPU)) {
            Graph g = new Graph("custom");
            Value x = g.input("x", V);
            Value ok = ops.apply(g, CUSTOM_WITH_KERNEL, Attrs.EMPTY, x).get(0);
            Value bad = ops.apply(g, CUSTOM_NO_KERNEL, Attrs.EMPTY, ok).get(0);
            g.setOutputs(bad);

            UnsupportedOpException e = assertThrows(UnsupportedOpException.class, () -> s.compile(g));
            assertEquals(0, fake.compileCalls.get());
            assertEquals(1, e.offenders().size(), e.getMessage());
            UnsupportedOpException.Offender o = e.offenders().get(0);
            assertEquals(OpKind.CUSTOM, o.kind());
            assertEquals(bad.nodeId(), o.nodeId());
            assertEquals("custom:" + CUSTOM_NO_KERNEL, o.name());
            assertEquals("no kernel for custom op '" + CUSTOM_NO_KERNEL + "' on TPU", o.reason());
            assertTrue(e.getMessage().contains("(no kernel for custom op '" + CUSTOM_NO_KERNEL + "' on TPU)"), e.getMessage());
            assertTrue(e.getMessage().contains("OpRegistry"), e.getMessage());

            // With the kernel registered for the device the same graph compiles.
            ops.registerKernel(CUSTOM_NO_KERNEL, Device.TPU, (in, out, a) -> { });
            try (CompiledGraph c = s.compile(g)) {
                assertEquals(1, fake.compileCalls.get());
                assertEquals(List.of("x"), c.inputNames());
            }
        }
    }

    @Test
    void compile_backendWithoutCustomKind_reportsCustomNodesWithoutAKernelReason() {
        OpRegistry.global().register(CUSTOM_WITH_KERNEL, (in, a) -> List.of(in.get(0)), Device.TPU, (in, out, a) -> { });
        FakeBackend fake = FakeBackend.without(Device.TPU, OpKind.CUSTOM);
        try (var reg = FakeBackend.install(fake); Session s = new Session(Device.TPU)) {
            Graph g = new Graph("custom");
            g.setOutputs(OpRegistry.global().apply(g, CUSTOM_WITH_KERNEL, Attrs.EMPTY, g.input("x", V)).get(0));
            UnsupportedOpException e = assertThrows(UnsupportedOpException.class, () -> s.compile(g));
            assertEquals(OpKind.CUSTOM, e.offenders().get(0).kind());
            assertEquals("no custom:" + CUSTOM_WITH_KERNEL + " kernel", e.offenders().get(0).reason(),
                    "the backend refuses the kind: it is not a missing kernel registration");
        }
    }

    @Test
    void compile_fullySupportedNestedGraph_reachesTheBackend() {
        FakeBackend fake = FakeBackend.full(Device.TPU, false);
        try (var reg = FakeBackend.install(fake); Session s = new Session(Device.TPU); CompiledGraph c = s.compile(nested())) {
            assertEquals(1, fake.compileCalls.get());
            assertEquals(List.of("x", "p", "xs"), c.inputNames());
            assertEquals(2, c.outputCount());
        }
    }
}
