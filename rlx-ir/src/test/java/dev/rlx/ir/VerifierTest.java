package dev.rlx.ir;

import static dev.rlx.ir.Check.f32;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** GraphVerifier errors (thrown together) and warnings (returned). */
class VerifierTest {

    private static GraphVerificationException failsVerification(Graph g, String... mentions) {
        GraphVerificationException e = assertThrows(GraphVerificationException.class, g::verify);
        for (String m : mentions) {
            assertTrue(e.errors().stream().anyMatch(err -> err.contains(m)), () -> "no error mentions '" + m + "': "
                    + e.errors());
            assertTrue(e.getMessage().contains(m), e.getMessage());
        }
        return e;
    }

    /** then: relu(a) or sum(a); else: neg(a); both take f32[2]. */
    private static Graph branch(String name) {
        Graph b = new Graph(name);
        b.setOutputs(b.relu(b.input("a", f32(2))));
        return b;
    }

    @Test
    void verify_validGraph_noWarnings() {
        assertEquals(List.of(), GraphSmokeTest.hello().verify());
        assertEquals(List.of(), GraphVerifier.verify(GraphSmokeTest.hello()));
    }

    @Test
    void verify_noOutputs_rejected() {
        Graph g = new Graph("open");
        g.relu(g.input("x", f32(2)));
        GraphVerificationException e = failsVerification(g, "@open has no outputs");
        assertEquals(1, e.errors().size());
        assertInstanceOf(RlxException.class, e);
        assertTrue(e.getMessage().startsWith("graph @open failed verification (1 error)"), e.getMessage());
    }

    @Test
    void verify_ifBranchOutputsChangedAfterEmbedding_rejected() {
        Graph g = new Graph("main");
        Value p = g.input("p", Shape.scalar(DType.BOOL));
        Value x = g.input("x", f32(2));
        Graph then = branch("then");
        Graph other = branch("else");
        g.setOutputs(g.ifElse(p, then, other, x));
        assertEquals(List.of(), g.verify());
        then.setOutputs(then.reduceSum(then.input("a"), false)); // now f32[] while else gives f32[2]
        failsVerification(g, "node %2 if", "branches return different shapes", "f32[]", "f32[2]");
    }

    @Test
    void verify_bothBranchesChangedConsistently_recordedShapesNoLongerMatch() {
        Graph g = new Graph("main");
        Value p = g.input("p", Shape.scalar(DType.BOOL));
        Value x = g.input("x", f32(2));
        Graph then = branch("then");
        Graph other = branch("else");
        g.setOutputs(g.ifElse(p, then, other, x));
        then.setOutputs(then.cast(then.input("a"), DType.F16));
        other.setOutputs(other.cast(other.input("a"), DType.F16));
        failsVerification(g, "node %2 if", "records outputs [f32[2]]", "[f16[2]]");
    }

    @Test
    void verify_whileBodyChangedAfterEmbedding_rejected() {
        Graph g = new Graph("main");
        Value x = g.input("x", f32(3));
        Graph cond = ControlFlowShapeTest.lessThan("cond", 10f, f32(3));
        Graph body = new Graph("body");
        Value c = body.input("c", f32(3));
        body.setOutputs(body.exp(c));
        g.setOutputs(g.whileLoop(cond, body, -1, x));
        assertEquals(List.of(), g.verify());
        body.setOutputs(body.concat(0, c, c));
        failsVerification(g, "node %1 while", "body must return the carries' shapes", "f32[6]");
    }

    @Test
    void verify_paramAddedToSubgraphAfterEmbedding_rejected() {
        Graph g = new Graph("main");
        Value p = g.input("p", Shape.scalar(DType.BOOL));
        Value x = g.input("x", f32(2));
        Graph then = branch("then");
        g.setOutputs(g.ifElse(p, then, branch("else"), x));
        then.param("late", f32(2));
        failsVerification(g, "declares params", "late");
    }

    @Test
    void verify_errorsInsideSubgraphs_arePrefixedWithWhere() {
        Graph inner = branch("inner");
        Graph outerThen = new Graph("outer_then");
        Value a = outerThen.input("a", f32(2));
        Value q = outerThen.input("q", Shape.scalar(DType.BOOL));
        outerThen.setOutputs(outerThen.ifElse(q, inner, branch("inner_else"), a));
        Graph outerElse = new Graph("outer_else");
        outerElse.input("a", f32(2));
        outerElse.setOutputs(outerElse.input("a"));
        outerElse.input("q", Shape.scalar(DType.BOOL));

        Graph g = new Graph("main");
        Value p = g.input("p", Shape.scalar(DType.BOOL));
        Value x = g.input("x", f32(2));
        g.setOutputs(g.ifElse(p, outerThen, outerElse, x, p));
        g.verify();
        inner.setOutputs(inner.reduceMax(inner.input("a"), false));
        GraphVerificationException e = failsVerification(g, "in thenBranch of %2 if: node %2 if");
        assertEquals(1, e.errors().size(), e.errors().toString());
    }

    @Test
    void verify_collectsEveryError() {
        Graph g = new Graph("main");
        Value p = g.input("p", Shape.scalar(DType.BOOL));
        Value x = g.input("x", f32(2));
        Graph then = branch("then");
        g.ifElse(p, then, branch("else"), x); // and no outputs set
        then.setOutputs(then.reduceSum(then.input("a"), false));
        GraphVerificationException e = failsVerification(g, "no outputs", "branches return different shapes");
        assertEquals(2, e.errors().size());
        assertTrue(e.getMessage().contains("(2 errors)"), e.getMessage());
        assertThrows(UnsupportedOperationException.class, () -> e.errors().add("x"));
    }

    @Test
    void verify_warnsAboutUnusedInputsParamsAndDeadNodes() {
        Graph g = new Graph("main");
        Value x = g.input("x", f32(2));
        g.input("unused_in", f32(2));
        g.param("unused_param", f32(2));
        Value w = g.param("w", f32(2));
        g.exp(x); // dead
        g.setOutputs(g.mul(x, w));
        assertEquals(List.of("input 'unused_in' is not used by any output", "param 'unused_param' is not used by any output",
                "1 node does not contribute to any output"), g.verify());
        g.tanh(g.sin(x)); // two more dead nodes
        assertTrue(g.verify().contains("3 nodes do not contribute to any output"), g.verify().toString());
    }

    @Test
    void verify_warningsInsideSubgraphs() {
        Graph g = new Graph("main");
        Value p = g.input("p", Shape.scalar(DType.BOOL));
        Value x = g.input("x", f32(2));
        Graph then = new Graph("then");
        then.input("a", f32(2));
        then.setOutputs(then.constant(Tensor.of(new float[] {1, 2}, 2)));
        g.setOutputs(g.ifElse(p, then, branch("else"), x));
        assertEquals(List.of("in thenBranch of %2 if: input 'a' is not used by any output"), g.verify());
    }

    @Test
    void verify_outputOnlyUsesSomeOfAMultiOutputNode_notDead() {
        Graph g = new Graph("main");
        Value x = g.input("x", f32(4));
        g.setOutputs(g.topK(x, 2, 0, true).get(1));
        assertEquals(List.of(), g.verify());
    }

    @Test
    void name_onAnInput_isRejected_soBindingNamesCannotChange() {
        Graph g = new Graph("main");
        Value x = g.input("x", f32(2));
        Value w = g.param("w", f32(2));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> g.name(x, "y"));
        assertTrue(e.getMessage().contains("input 'x'"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> g.name(w, "v"));
        g.setOutputs(g.add(x, w));
        assertEquals(List.of(), g.verify());
        assertEquals("x", g.nameOf(x));
    }

    @Test
    void verify_graphsReadFromBytesAreVerifiedTheSame() {
        Graph g = SampleGraphs.allOps();
        assertEquals(g.verify(), GraphSerializer.fromBytes(GraphSerializer.toBytes(g)).verify());
    }
}
