package dev.rlx.testkit.reference;

import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import java.lang.foreign.MemorySegment;

/** {@code Op.QuantMatMul}: each weight row decoded by the format's reference decoder, then dot products in double. */
final class QuantMatMulReference {
    private QuantMatMulReference() {}

    static RefTensor quantMatMul(Op.QuantMatMul op, RefTensor x, RefTensor w, Shape out) {
        int k = x.shape.dim(x.shape.rank() - 1);
        int n = w.shape.dim(0);
        int rowBytes = w.shape.dim(1);
        int rows = x.size() / Math.max(1, k);
        byte[] b = new byte[w.size()];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) w.ints[i];
        }
        MemorySegment seg = MemorySegment.ofArray(b);
        float[] row = new float[k];
        double[] y = new double[rows * n];
        for (int j = 0; j < n; j++) {
            op.format().decode(seg, (long) j * rowBytes, row, 0, k);
            for (int r = 0; r < rows; r++) {
                double s = 0;
                for (int i = 0; i < k; i++) {
                    s += x.get(r * k + i) * row[i];
                }
                y[r * n + j] = s;
            }
        }
        return RefTensor.rounded(out, y);
    }
}
