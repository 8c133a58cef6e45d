package dev.rlx.ir;

import static dev.rlx.ir.Check.in;
import static dev.rlx.ir.Check.rejects;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** reshape, transpose, slice, concat and gather over random operands with independently built expectations. */
class MovementShapePropertiesTest {

    /** Groups consecutive factors into dims at random cut points. */
    private static int[] group(List<Integer> factors, Random r) {
        List<Integer> dims = new ArrayList<>();
        int acc = 1;
        for (int i = 0; i < factors.size(); i++) {
            acc *= factors.get(i);
            if (i == factors.size() - 1 || r.nextInt(3) == 0) {
                dims.add(acc);
                acc = 1;
            }
        }
        if (r.nextInt(4) == 0) {
            dims.add(r.nextInt(dims.size() + 1), 1); // a size-1 dim anywhere
        }
        return dims.stream().mapToInt(Integer::intValue).toArray();
    }

    @Property(tries = 300)
    void reshape_sameFactorsRegrouped_inferMinusOne(@ForAll long seed) {
        Random r = new Random(seed);
        List<Integer> factors = new ArrayList<>();
        int n = 1 + r.nextInt(5);
        for (int i = 0; i < n; i++) {
            factors.add(List.of(1, 2, 3, 5).get(r.nextInt(4)));
        }
        int[] from = group(factors, r);
        Collections.shuffle(factors, r);
        int[] to = group(factors, r);
        Graph g = new Graph("r");
        Value x = in(g, Shape.of(DType.F32, from));
        assertEquals(Shape.of(DType.F32, to), g.reshape(x, to).shape());
        int hole = r.nextInt(to.length);
        int[] withHole = to.clone();
        withHole[hole] = -1;
        assertEquals(Shape.of(DType.F32, to), g.reshape(x, withHole).shape());
        int[] tooMany = to.clone();
        tooMany[hole] = to[hole] + 1;
        rejects(g, "reshape", () -> g.reshape(x, tooMany), Shape.of(DType.F32, from).toString());
    }

    @Property(tries = 200)
    void transpose_randomPermutation(@ForAll long seed) {
        Random r = new Random(seed);
        int rank = r.nextInt(6);
        int[] dims = new int[rank];
        List<Integer> perm = new ArrayList<>();
        for (int i = 0; i < rank; i++) {
            dims[i] = r.nextInt(5);
            perm.add(i);
        }
        Collections.shuffle(perm, r);
        int[] expected = new int[rank];
        for (int i = 0; i < rank; i++) {
            expected[i] = dims[perm.get(i)];
        }
        Graph g = new Graph("t");
        Value x = in(g, Shape.of(DType.I32, dims));
        assertEquals(Shape.of(DType.I32, expected), g.transpose(x, perm.stream().mapToInt(i -> i).toArray()).shape());
    }

    @Property(tries = 400)
    void slice_acceptedExactlyWhenEveryIndexIsInside(@ForAll @IntRange(min = 0, max = 6) int n,
                                                     @ForAll @IntRange(min = -3, max = 8) int start,
                                                     @ForAll @IntRange(min = 0, max = 8) int length,
                                                     @ForAll @IntRange(min = -3, max = 3) int step) {
        Graph g = new Graph("s");
        Value x = in(g, Shape.of(DType.F32, 2, n));
        if (step == 0) {
            rejects(g, "slice", () -> g.slice(x, 1, start, length, step), "step");
            return;
        }
        boolean inside = true;
        for (int i = 0; i < length; i++) { // visit every index the slice reads
            int idx = start + i * step;
            inside &= idx >= 0 && idx < n;
        }
        if (inside) {
            assertEquals(Shape.of(DType.F32, 2, length), g.slice(x, -1, start, length, step).shape());
        } else {
            rejects(g, "slice", () -> g.slice(x, -1, start, length, step), "f32[2," + n + "]");
        }
    }

    @Property(tries = 200)
    void concat_randomPieces_sumAlongAxis(@ForAll long seed) {
        Random r = new Random(seed);
        int rank = 1 + r.nextInt(4);
        int axis = r.nextInt(rank);
        int[] base = new int[rank];
        for (int i = 0; i < rank; i++) {
            base[i] = r.nextInt(4);
        }
        Graph g = new Graph("c");
        int pieces = 1 + r.nextInt(4);
        Value[] xs = new Value[pieces];
        int total = 0;
        for (int p = 0; p < pieces; p++) {
            int[] d = base.clone();
            d[axis] = r.nextInt(4);
            total += d[axis];
            xs[p] = in(g, Shape.of(DType.F16, d));
        }
        int[] expected = base.clone();
        expected[axis] = total;
        int given = r.nextBoolean() ? axis : axis - rank;
        assertEquals(Shape.of(DType.F16, expected), g.concat(given, xs).shape());
    }

    @Property(tries = 200)
    void gather_outputIsDataPrefixIndicesDataSuffix(@ForAll long seed) {
        Random r = new Random(seed);
        List<Integer> data = new ArrayList<>();
        for (int i = 1 + r.nextInt(3); i > 0; i--) {
            data.add(1 + r.nextInt(4));
        }
        List<Integer> idx = new ArrayList<>();
        for (int i = r.nextInt(3); i > 0; i--) {
            idx.add(r.nextInt(4));
        }
        int axis = r.nextInt(data.size());
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < axis; i++) {
            expected.add(data.get(i));
        }
        expected.addAll(idx);
        for (int i = axis + 1; i < data.size(); i++) {
            expected.add(data.get(i));
        }
        Graph g = new Graph("g");
        Value d = in(g, Shape.of(DType.BF16, data));
        Value i = in(g, Shape.of(r.nextBoolean() ? DType.I32 : DType.I64, idx));
        assertEquals(Shape.of(DType.BF16, expected), g.gather(d, i, axis - (r.nextBoolean() ? data.size() : 0)).shape());
    }
}
