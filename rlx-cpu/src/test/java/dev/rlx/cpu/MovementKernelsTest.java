package dev.rlx.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rlx.testkit.reference.Ref;
import dev.rlx.cpu.testing.Runner;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Data movement is exact: results must equal the reference bit for bit, in every dtype. */
class MovementKernelsTest {
    private final Random r = new Random(1234);

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"F32", "I64", "F16", "BOOL", "F64", "I8"})
    void transpose_rank4_anyDtype(DType t) {
        int[] d = {2, 3, 4, 5};
        int[] perm = {2, 0, 3, 1};
        Ref x = t == DType.BOOL ? Ref.randomInts(r, 0, 2, d) : Ref.randomInts(r, -50, 50, d);
        Graph g = new Graph("t");
        g.setOutputs(g.transpose(g.input("x", Shape.of(t, d)), perm));
        double[] out = Runner.run(g, Map.of("x", x)).get(0);
        Ref e = Ref.zeros(4, 2, 5, 3);
        for (int i = 0; i < e.size(); i++) {
            int[] o = e.unravel(i);
            int[] in = new int[4];
            for (int k = 0; k < 4; k++) {
                in[perm[k]] = o[k];
            }
            e.data()[i] = x.at(in);
        }
        assertArrayEquals(e.data(), out, "transpose " + t);
    }

    @Test
    void transpose_large_parallel() {
        Ref x = Ref.random(r, -1, 1, 300, 517);
        Graph g = new Graph("t");
        g.setOutputs(g.transpose(g.input("x", Shape.of(DType.F32, 300, 517)), 1, 0));
        double[] out = Runner.run(g, Map.of("x", x)).get(0);
        for (int i = 0; i < 300; i++) {
            for (int j = 0; j < 517; j++) {
                assertEquals(x.at(i, j), out[j * 300 + i]);
            }
        }
    }

    @Test
    void slice_stepsAndAxes() {
        int[] d = {3, 10, 4};
        Ref x = Ref.random(r, -1, 1, d);
        int[][] cases = {{1, 1, 4, 2}, {1, 9, 5, -2}, {2, 3, 1, 1}, {0, 1, 2, 1}, {1, 0, 0, 1}};
        for (int[] c : cases) {
            Graph g = new Graph("s");
            g.setOutputs(g.slice(g.input("x", Shape.of(DType.F32, d)), c[0], c[1], c[2], c[3]));
            double[] out = Runner.run(g, Map.of("x", x)).get(0);
            int[] od = d.clone();
            od[c[0]] = c[2];
            Ref e = Ref.zeros(od);
            for (int i = 0; i < e.size(); i++) {
                int[] idx = e.unravel(i);
                idx[c[0]] = c[1] + idx[c[0]] * c[3];
                e.data()[i] = x.at(idx);
            }
            assertArrayEquals(e.data(), out, java.util.Arrays.toString(c));
        }
    }

    @Test
    void sliceView_ofLeadingAxis_needsNoKernelAndReadsRightRows() {
        Graph g = new Graph("view");
        Value x = g.input("x", Shape.of(DType.F32, 6, 3));
        Value s = g.narrow(x, 0, 2, 3);             // contiguous rows 2..4: a view
        Value y = g.reshape(s, 9);                  // and a view of the view
        g.setOutputs(g.add(y, y), y);
        Ref xv = Ref.random(r, -1, 1, 6, 3);
        try (Session ses = new Session(Device.CPU); CompiledGraph c = ses.compile(g)) {
            assertEquals(1, c.kernelCount(), "only the add computes");
            c.setInput("x", xv.floats());
            c.run();
            float[] view = new float[9];
            c.output(1).copyTo(view);
            for (int i = 0; i < 9; i++) {
                assertEquals((float) xv.data()[6 + i], view[i]);
            }
        }
    }

    @Test
    void concat_everyAxis_withEmptyPart() {
        Ref a = Ref.random(r, -1, 1, 2, 3, 4);
        Ref b = Ref.random(r, -1, 1, 2, 3, 4);
        for (int axis = 0; axis < 3; axis++) {
            int[] ed = {2, 3, 4};
            ed[axis] = 0;
            Graph g = new Graph("c");
            Value va = g.input("a", Shape.of(DType.F32, 2, 3, 4));
            Value ve = g.input("e", Shape.of(DType.F32, ed));
            Value vb = g.input("b", Shape.of(DType.F32, 2, 3, 4));
            g.setOutputs(g.concat(axis, va, ve, vb));
            double[] out = Runner.run(g, Map.of("a", a, "b", b, "e", new float[0])).get(0);
            int[] od = {2, 3, 4};
            int part = od[axis];
            od[axis] = 2 * part;
            Ref e = Ref.zeros(od);
            for (int i = 0; i < e.size(); i++) {
                int[] idx = e.unravel(i);
                boolean second = idx[axis] >= part;
                idx[axis] %= part;
                e.data()[i] = (second ? b : a).at(idx);
            }
            assertArrayEquals(e.data(), out, "axis " + axis);
        }
    }

    @Test
    void expand_broadcastsOnesAndLeadingDims() {
        Ref x = Ref.random(r, -1, 1, 3, 1);
        Graph g = new Graph("e");
        g.setOutputs(g.expand(g.input("x", Shape.of(DType.F32, 3, 1)), 2, 3, 5));
        double[] out = Runner.run(g, Map.of("x", x)).get(0);
        for (int i = 0; i < 30; i++) {
            assertEquals(x.data()[(i / 5) % 3], out[i]);
        }
    }

    @Test
    void movementChain_outputsEqualReferenceAndReuseArena() {
        // reshape -> transpose -> slice -> concat -> expand, all exact
        Graph g = new Graph("chain");
        Value x = g.input("x", Shape.of(DType.I64, 4, 6));
        Value t = g.transpose(g.reshape(x, 2, 2, 6), 2, 0, 1);            // [6,2,2]
        Value s = g.slice(t, 0, 5, 3, -2);                                // rows 5,3,1 -> [3,2,2]
        Value c = g.concat(0, s, s);                                      // [6,2,2]
        g.setOutputs(c);
        long[] xv = new long[24];
        for (int i = 0; i < 24; i++) {
            xv[i] = i * 7 - 30;
        }
        List<double[]> out = Runner.run(g, Map.of("x", xv));
        double[] e = new double[24];
        int k = 0;
        for (int rep = 0; rep < 2; rep++) {
            for (int row : new int[] {5, 3, 1}) {
                for (int a = 0; a < 2; a++) {
                    for (int b = 0; b < 2; b++) {
                        e[k++] = xv[(a * 2 + b) * 6 + row];
                    }
                }
            }
        }
        assertArrayEquals(e, out.get(0));
    }
}
