package dev.rlx.testkit.reference;

import dev.rlx.ir.ElementwiseProgram;
import dev.rlx.ir.Shape;
import java.util.Arrays;
import java.util.List;

/**
 * {@code numpy.matmul} as a triple loop: rank-1 operands as a row (lhs) or a column (rhs), batch dims broadcast,
 * {@code transA}/{@code transB} reading an operand's last two dims swapped. Floats accumulate in double and are
 * stored once; integers accumulate in long and wrap to the width.
 */
final class MatMulReference {
    private MatMulReference() {}

    /** One operand read as the matrices {@code [batch..., rows, cols]} the product sees. */
    private record Operand(RefTensor t, int[] batch, int rows, int cols, boolean trans) {
        static Operand of(RefTensor t, boolean lhs, boolean trans) {
            int[] d = t.shape.dims();
            if (d.length == 1) {
                d = lhs ? new int[] {1, d[0]} : new int[] {d[0], 1};
            }
            int r = d[d.length - 2];
            int c = d[d.length - 1];
            return new Operand(t, Arrays.copyOf(d, d.length - 2), trans ? c : r, trans ? r : c, trans);
        }

        /** Flat position of logical element (i, j) of the matrix at full-rank batch index {@code outBatch}. */
        int at(int[] outBatch, int i, int j) {
            int off = outBatch.length - batch.length;
            int f = 0;
            for (int d = 0; d < batch.length; d++) {
                f = f * batch[d] + (batch[d] == 1 ? 0 : outBatch[off + d]);
            }
            int physCols = trans ? rows : cols;
            return f * rows * cols + (trans ? j * physCols + i : i * physCols + j);
        }
    }

    /** Products summed over K for every output element, in double (floats) or wrapping long (integers). */
    private static double[] products(Operand a, Operand b, int[] batch, long[] ints) {
        int m = a.rows();
        int k = a.cols();
        int n = b.cols();
        int batches = Index.count(batch);
        double[] out = new double[batches * m * n];
        for (int f = 0; f < out.length; f++) {
            int[] bi = Index.unravel(f / (m * n), batch);
            int i = f / n % m;
            int j = f % n;
            // element (i, p) of A and (p, j) of B step by a fixed stride as p grows
            int a0 = a.at(bi, i, 0);
            int aStep = k > 1 ? a.at(bi, i, 1) - a0 : 0;
            int b0 = b.at(bi, 0, j);
            int bStep = k > 1 ? b.at(bi, 1, j) - b0 : 0;
            double s = 0;
            long si = 0;
            for (int p = 0; p < k; p++) {
                if (ints != null) {
                    si += a.t().getLong(a0 + p * aStep) * b.t().getLong(b0 + p * bStep);
                } else {
                    s += a.t().get(a0 + p * aStep) * b.t().get(b0 + p * bStep);
                }
            }
            out[f] = s;
            if (ints != null) {
                ints[f] = si;
            }
        }
        return out;
    }

    private static int[] batchOf(Operand a, Operand b) {
        int r = Math.max(a.batch().length, b.batch().length);
        int[] batch = new int[r];
        for (int i = 0; i < r; i++) {
            int x = i - (r - a.batch().length) >= 0 ? a.batch()[i - (r - a.batch().length)] : 1;
            int y = i - (r - b.batch().length) >= 0 ? b.batch()[i - (r - b.batch().length)] : 1;
            batch[i] = x == 1 ? y : x;
        }
        return batch;
    }

    static RefTensor matmul(RefTensor a, RefTensor b, boolean transA, boolean transB, Shape out) {
        Operand oa = Operand.of(a, true, transA);
        Operand ob = Operand.of(b, false, transB);
        long[] ints = a.integral() ? new long[Math.toIntExact(out.elementCount())] : null;
        double[] s = products(oa, ob, batchOf(oa, ob), ints);
        RefTensor y = RefTensor.zeros(out); // the rank-1 operands' dropped dims keep the element order
        for (int i = 0; i < y.size(); i++) {
            if (ints != null) {
                y.setLong(i, ints[i]);
            } else {
                y.set(i, s[i]);
            }
        }
        return y;
    }

    /** {@code epilogue(a @ b, extras...)}: the product unrounded, the epilogue in double, stored once. */
    static RefTensor fused(ElementwiseProgram epilogue, boolean transA, boolean transB, List<RefTensor> in, Shape out) {
        Operand oa = Operand.of(in.get(0), true, transA);
        Operand ob = Operand.of(in.get(1), false, transB);
        double[] mm = products(oa, ob, batchOf(oa, ob), null);
        List<RefTensor> extras = in.subList(2, in.size());
        int[][] maps = new int[extras.size()][];
        for (int j = 0; j < maps.length; j++) {
            maps[j] = Index.broadcast(extras.get(j).shape.dims(), out.dims());
        }
        RefTensor y = RefTensor.zeros(out);
        double[] values = new double[epilogue.inputs() + epilogue.steps().size()];
        for (int i = 0; i < y.size(); i++) {
            values[0] = mm[i];
            for (int j = 0; j < maps.length; j++) {
                values[j + 1] = extras.get(j).get(maps[j][i]);
            }
            y.set(i, ElementwiseReference.evaluate(epilogue, values));
        }
        return y;
    }
}
