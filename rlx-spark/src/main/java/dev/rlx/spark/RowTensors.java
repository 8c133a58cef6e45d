package dev.rlx.spark;

import dev.rlx.ir.Tensor;
import java.util.List;
import org.apache.spark.sql.Row;

/** One model input's batch tensor from the rows' column values (numbers, or arrays of numbers). */
final class RowTensors {
    private RowTensors() {}

    /**
     * The rows {@code live} of {@code rows}, stacked into {@code [n, rowShape...]} for model input {@code in};
     * rows past the live ones (padding up to {@code n}) are zeros.
     */
    static Tensor stack(List<Row> rows, List<Integer> live, int n, OnnxColumns cols, int in, int partition, long offset) {
        int c = cols.columnIndex()[in];
        int[] rowShape = cols.rowShape()[in].clone();
        int per = -1;
        double[] values = null;
        for (int r = 0; r < live.size(); r++) {
            Row row = rows.get(live.get(r));
            Object v = row.get(c);
            List<?> list = v instanceof Number ? List.of(v) : row.getList(c);
            if (per < 0) {
                per = list.size();
                long expected = 1;
                int unknown = -1;
                for (int d = 0; d < rowShape.length; d++) {
                    if (rowShape[d] < 0) {
                        unknown = d;
                    } else {
                        expected *= rowShape[d];
                    }
                }
                if (unknown >= 0 && expected > 0 && per % expected == 0) {
                    rowShape[unknown] = (int) (per / expected);
                    expected = per;
                }
                if (expected != per) {
                    throw bad(partition, offset + live.get(r), cols, in, "has " + per + " values; input '"
                            + cols.inputNames()[in] + "' takes " + expected + " per row (dims after the batch: "
                            + java.util.Arrays.toString(cols.rowShape()[in]) + ")");
                }
                EmbedOptions.check("values in a batch of input '" + cols.inputNames()[in] + "'", (long) per * n, 0,
                        Integer.MAX_VALUE - 8);
                values = new double[per * n];
            } else if (list.size() != per) {
                throw bad(partition, offset + live.get(r), cols, in, "has " + list.size() + " values where the batch's first"
                        + " row has " + per);
            }
            for (int i = 0; i < per; i++) {
                Object x = list.get(i);
                if (!(x instanceof Number num)) {
                    throw bad(partition, offset + live.get(r), cols, in, "has a null at [" + i + "]");
                }
                values[r * per + i] = num.doubleValue();
            }
        }
        int[] dims = new int[rowShape.length + 1];
        dims[0] = n;
        System.arraycopy(rowShape, 0, dims, 1, rowShape.length);
        return switch (cols.elementType()[in]) {
            case "FLOAT" -> {
                float[] f = new float[values.length];
                for (int i = 0; i < f.length; i++) {
                    f[i] = (float) values[i];
                }
                yield Tensor.of(f, dims);
            }
            case "DOUBLE" -> Tensor.of(values, dims);
            case "INT64" -> {
                long[] l = new long[values.length];
                for (int i = 0; i < l.length; i++) {
                    l[i] = (long) values[i];
                }
                yield Tensor.of(l, dims);
            }
            default -> {
                int[] a = new int[values.length];
                for (int i = 0; i < a.length; i++) {
                    a[i] = (int) values[i];
                }
                yield Tensor.of(a, dims);
            }
        };
    }

    private static PartitionInferenceException bad(int partition, long row, OnnxColumns cols, int in, String what) {
        return new PartitionInferenceException(partition, row, row, "column feeding model input '" + cols.inputNames()[in]
                + "'", new RlxSparkException("the row's value " + what));
    }
}
