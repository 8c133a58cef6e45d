package dev.rlx.ir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class GraphSmokeTest {
    static Graph hello() {
        Graph g = new Graph("hello");
        Value x = g.input("x", Shape.of(DType.F32, 1, 4));
        Value w = g.param("w", Shape.of(DType.F32, 4, 2));
        Value y = g.matmul(x, w, Shape.of(DType.F32, 1, 2));
        Value s = g.reduceSum(g.relu(y), false, -1);
        List<Value> tk = g.topK(y, 1, -1, true);
        g.setOutputs(y, s, tk.get(1));
        return g;
    }

    @Test
    void quickstartGraph_printsAndRoundTrips() {
        Graph g = hello();
        String text = g.toString();
        assertTrue(text.contains("%2 = matmul(%0, %1) : f32[1,2]"), text);
        assertTrue(text.contains("reduce_sum[axes=[1], keepDims=false](%3)"), text);
        Graph back = GraphSerializer.fromBytes(GraphSerializer.toBytes(g));
        assertEquals(g.fingerprint(), back.fingerprint());
        assertEquals(text, back.toString());
        assertEquals(List.of(), g.verify());
        assertEquals(hello().fingerprint(), g.fingerprint());
    }

    @Test
    void matmul_declaredShapeMismatch_isRejected() {
        Graph g = new Graph("m");
        Value x = g.input("x", Shape.of(DType.F32, 1, 4));
        Value w = g.param("w", Shape.of(DType.F32, 4, 2));
        ShapeException e = assertThrows(ShapeException.class, () -> g.matmul(x, w, Shape.of(DType.F32, 1, 3)));
        assertTrue(e.getMessage().startsWith("[matmul]"), e.getMessage());
        assertNotEquals(null, e.getMessage());
    }
}
