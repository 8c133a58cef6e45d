package dev.rlx.spark;

import dev.rlx.onnx.text.BertTokenizer;
import dev.rlx.onnx.text.Encoding;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;

/**
 * The task side of {@link RlxSpark#embed}: each partition's rows with an embedding appended, computed window by
 * window ({@link EmbedOptions}) on this JVM's shared model. A null text gives a null embedding; an empty text is
 * embedded like any other (its [CLS] and [SEP] tokens).
 */
final class EmbedPartitions implements MapPartitionsFunction<Row, Row> {
    private final TextModel model;
    private final EmbedOptions options;
    private final int textIndex;
    private final String textColumn;

    EmbedPartitions(TextModel model, EmbedOptions options, int textIndex, String textColumn) {
        this.model = model;
        this.options = options;
        this.textIndex = textIndex;
        this.textColumn = textColumn;
    }

    @Override
    public Iterator<Row> call(Iterator<Row> rows) {
        TaskContext task = TaskContext.get();
        int partition = task == null ? 0 : task.partitionId();
        int threads = Tasks.threads(options.threads());
        String key = model.key();
        TextModel.Loaded loaded = ExecutorModels.model(key, model::load);
        Runnable[] done = new Runnable[1];
        TextEncoder encoder = Tasks.borrowForTask(key, threads, done);
        return new Windows(rows, loaded.tokenizer(), encoder, partition, done[0]);
    }

    /** Reads a window of rows, embeds its texts, hands the rows out, and reads the next. */
    private final class Windows implements Iterator<Row> {
        private final Iterator<Row> in;
        private final BertTokenizer tokenizer;
        private final TextEncoder encoder;
        private final int partition;
        private final Runnable done;
        private final List<Row> rows = new ArrayList<>();
        private float[][] vectors = new float[0][];
        private int next;
        private long offset; // partition offset of rows.get(0)

        Windows(Iterator<Row> in, BertTokenizer tokenizer, TextEncoder encoder, int partition, Runnable done) {
            this.in = in;
            this.done = done;
            this.tokenizer = tokenizer;
            this.encoder = encoder;
            this.partition = partition;
        }

        @Override
        public boolean hasNext() {
            if (next < rows.size()) {
                return true;
            }
            offset += rows.size();
            rows.clear();
            next = 0;
            int texts = 0;
            while (texts < options.window() && in.hasNext()) {
                Row r = in.next();
                rows.add(r);
                if (!r.isNullAt(textIndex)) {
                    texts++;
                }
            }
            if (rows.isEmpty()) {
                done.run(); // the encoder is free for the next task (also given back if the task ends early)
                return false;
            }
            vectors = embedWindow();
            return true;
        }

        @Override
        public Row next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            Row r = rows.get(next);
            Object[] values = new Object[r.length() + 1];
            for (int i = 0; i < r.length(); i++) {
                values[i] = r.get(i);
            }
            values[r.length()] = vectors[next];
            next++;
            return RowFactory.create(values);
        }

        /** The window's embeddings by row (null for a null text). */
        private float[][] embedWindow() {
            int n = rows.size();
            Encoding[] enc = new Encoding[n];
            for (int i = 0; i < n; i++) {
                Row r = rows.get(i);
                if (r.isNullAt(textIndex)) {
                    continue;
                }
                try {
                    enc[i] = tokenizer.encode(r.getString(textIndex));
                } catch (RuntimeException e) {
                    throw new PartitionInferenceException(partition, offset + i, offset + i,
                            "cannot tokenize column '" + textColumn + "'", e);
                }
            }
            return LengthBuckets.embed(enc, encoder, options, tokenizer.maxLength(), partition, offset, textColumn);
        }
    }
}
