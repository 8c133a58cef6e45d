package dev.rlx.ir;

import static dev.rlx.ir.Check.in;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/** Reduce axes normalisation and output dims, against a direct construction of the expected dims. */
class ReductionShapePropertiesTest {

    @Property(tries = 300)
    void reduce_randomAxes_anyOrderAndSign(@ForAll long seed, @ForAll boolean keepDims) {
        Random r = new Random(seed);
        int rank = r.nextInt(5);
        int[] dims = new int[rank];
        for (int i = 0; i < rank; i++) {
            dims[i] = r.nextInt(4);
        }
        List<Integer> chosen = new ArrayList<>();
        for (int i = 0; i < rank; i++) {
            if (r.nextBoolean()) {
                chosen.add(i);
            }
        }
        // Pass the chosen axes shuffled, each as i or i - rank.
        List<Integer> given = new ArrayList<>();
        for (int a : chosen) {
            given.add(r.nextBoolean() ? a : a - rank);
        }
        Collections.shuffle(given, r);
        boolean all = chosen.isEmpty(); // no axes means every axis
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < rank; i++) {
            boolean reduced = all || chosen.contains(i);
            if (!reduced) {
                expected.add(dims[i]);
            } else if (keepDims) {
                expected.add(1);
            }
        }
        Graph g = new Graph("r");
        Value x = in(g, Shape.of(DType.F64, dims));
        Value y = g.reduceMean(x, keepDims, given.stream().mapToInt(Integer::intValue).toArray());
        assertEquals(Shape.of(DType.F64, expected), y.shape());
        List<Integer> storedAxes = new ArrayList<>();
        for (int i = 0; i < rank; i++) {
            if (all || chosen.contains(i)) {
                storedAxes.add(i);
            }
        }
        assertEquals(new Op.Reduce(ReduceKind.MEAN, storedAxes, keepDims), y.node().op());
    }
}
