package dev.rlx.spark;

import dev.rlx.ir.Tensor;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;

/**
 * The task side of {@link RlxSpark#onnx}: rows batched along the model's first dim, each output's slice per row
 * appended as {@code array<float>}. A row with a null in any input column gets nulls in every output column and
 * is not run.
 */
final class OnnxPartitions implements MapPartitionsFunction<Row, Row> {
    private final RlxOnnxModel model;
    private final OnnxColumns columns;
    private final OnnxOptions options;

    OnnxPartitions(RlxOnnxModel model, OnnxColumns columns, OnnxOptions options) {
        this.model = model;
        this.columns = columns;
        this.options = options;
    }

    @Override
    public Iterator<Row> call(Iterator<Row> rows) {
        TaskContext task = TaskContext.get();
        int partition = task == null ? 0 : task.partitionId();
        int threads = Tasks.threads(options.threads());
        String key = model.key();
        ExecutorModels.model(key, model::load);
        Runnable[] done = new Runnable[1];
        RlxOnnxModel.Runner runner = Tasks.borrowForTask(key, threads, done);
        int batch = columns.fixedBatch() > 0 ? columns.fixedBatch() : options.batchSize();
        return new Iterator<>() {
            private final List<Row> buffer = new ArrayList<>();
            private float[][][] out; // [row][output] -> values
            private int next;
            private long offset;

            @Override
            public boolean hasNext() {
                if (next < buffer.size()) {
                    return true;
                }
                offset += buffer.size();
                buffer.clear();
                next = 0;
                while (buffer.size() < batch && rows.hasNext()) {
                    buffer.add(rows.next());
                }
                if (buffer.isEmpty()) {
                    done[0].run();
                    return false;
                }
                out = runBatch(runner, buffer, batch, partition, offset);
                return true;
            }

            @Override
            public Row next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                Row r = buffer.get(next);
                int k = columns.outputColumns().length;
                Object[] values = new Object[r.length() + k];
                for (int i = 0; i < r.length(); i++) {
                    values[i] = r.get(i);
                }
                for (int j = 0; j < k; j++) {
                    values[r.length() + j] = out[next] == null ? null : out[next][j];
                }
                next++;
                return RowFactory.create(values);
            }
        };
    }

    /** Per buffered row its outputs (null for a row with a null input). */
    private float[][][] runBatch(RlxOnnxModel.Runner runner, List<Row> rows, int fullBatch, int partition, long offset) {
        List<Integer> live = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            boolean nulls = false;
            for (int c : columns.columnIndex()) {
                nulls |= rows.get(i).isNullAt(c);
            }
            if (!nulls) {
                live.add(i);
            }
        }
        float[][][] out = new float[rows.size()][][];
        if (live.isEmpty()) {
            return out;
        }
        int n = columns.fixedBatch() > 0 ? fullBatch : Batches.roundedBatch(live.size(), fullBatch);
        Map<String, Tensor> inputs = new LinkedHashMap<>();
        for (int in = 0; in < columns.inputNames().length; in++) {
            inputs.put(columns.inputNames()[in], RowTensors.stack(rows, live, n, columns, in, partition, offset));
        }
        Map<String, Tensor> result;
        try {
            result = runner.run(inputs);
        } catch (RuntimeException e) {
            throw new PartitionInferenceException(partition, offset + live.get(0), offset + live.get(live.size() - 1),
                    "running the model on a batch of " + live.size() + " rows", e);
        }
        List<Tensor> outputs = new ArrayList<>(result.values());
        int k = columns.outputColumns().length;
        for (int j = 0; j < k; j++) {
            Tensor t = outputs.get(j);
            if (t.shape().rank() == 0 || t.shape().dim(0) != n) {
                throw new PartitionInferenceException(partition, offset + live.get(0), offset + live.get(live.size() - 1),
                        "output '" + columns.outputColumns()[j] + "'",
                        new RlxSparkException("the model gave shape " + t.shape() + ", not one row per input row (" + n + ")"));
            }
        }
        for (int r = 0; r < live.size(); r++) {
            out[live.get(r)] = new float[k][];
        }
        for (int j = 0; j < k; j++) {
            float[] all = outputs.get(j).toFloatArray();
            int per = all.length / n;
            for (int r = 0; r < live.size(); r++) {
                float[] v = new float[per];
                System.arraycopy(all, r * per, v, 0, per);
                out[live.get(r)][j] = v;
            }
        }
        return out;
    }
}
