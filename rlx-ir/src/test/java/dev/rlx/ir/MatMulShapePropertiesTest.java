package dev.rlx.ir;

import static dev.rlx.ir.Check.f32;
import static dev.rlx.ir.Check.in;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** matmul against shapes assembled from their expected parts (batch, M, K, N, 1-D choices). */
class MatMulShapePropertiesTest {

    @Property(tries = 300)
    void matmul_randomOperands_giveNumpyShape(@ForAll long seed, @ForAll @IntRange(min = 0, max = 4) int m,
                                              @ForAll @IntRange(min = 0, max = 4) int k,
                                              @ForAll @IntRange(min = 0, max = 4) int n,
                                              @ForAll boolean lhsVector, @ForAll boolean rhsVector) {
        Random r = new Random(seed);
        int batchRank = r.nextInt(4);
        List<Integer> batch = new ArrayList<>();
        for (int i = 0; i < batchRank; i++) {
            batch.add(1 + r.nextInt(3));
        }
        // Each operand gets a suffix of the batch dims, some of them replaced by 1 (broadcast).
        List<Integer> a = new ArrayList<>(lhsVector ? List.of() : batchPart(batch, r));
        List<Integer> b = new ArrayList<>(rhsVector ? List.of() : batchPart(batch, r));
        List<Integer> expected = new ArrayList<>();
        // The result's batch dims: the longer of the two batch parts, with the real size where either has it.
        int rank = Math.max(a.size(), b.size());
        for (int i = 0; i < rank; i++) {
            int ai = i - (rank - a.size());
            int bi = i - (rank - b.size());
            int da = ai >= 0 ? a.get(ai) : 1;
            int db = bi >= 0 ? b.get(bi) : 1;
            expected.add(Math.max(da, db));
        }
        if (lhsVector) {
            a.add(k);
        } else {
            a.add(m);
            a.add(k);
            expected.add(m);
        }
        if (rhsVector) {
            b.add(k);
        } else {
            b.add(k);
            b.add(n);
            expected.add(n);
        }
        Graph g = new Graph("m");
        Value x = in(g, Shape.of(DType.F32, a));
        Value y = in(g, Shape.of(DType.F32, b));
        assertEquals(Shape.of(DType.F32, expected), g.matmul(x, y).shape(), a + " x " + b);
        assertEquals(Shape.of(DType.F32, expected), g.matmul(x, y, Shape.of(DType.F32, expected)).shape());
    }

    private static List<Integer> batchPart(List<Integer> batch, Random r) {
        int drop = r.nextInt(batch.size() + 1);
        List<Integer> part = new ArrayList<>();
        for (int i = drop; i < batch.size(); i++) {
            part.add(r.nextBoolean() ? batch.get(i) : 1);
        }
        return part;
    }

    @Property(tries = 200)
    void matmul_innerMismatch_alwaysRejected(@ForAll @IntRange(min = 1, max = 6) int k1,
                                             @ForAll @IntRange(min = 1, max = 6) int k2) {
        Graph g = new Graph("m");
        Value x = in(g, f32(2, k1));
        Value y = in(g, f32(k2, 3));
        if (k1 == k2) {
            assertEquals(f32(2, 3), g.matmul(x, y).shape());
        } else {
            Check.rejects(g, "matmul", () -> g.matmul(x, y), "K=" + k1, "K=" + k2);
        }
    }
}
