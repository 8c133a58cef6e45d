package dev.rlx.spark;

import dev.rlx.onnx.OnnxModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * RLX inference as DataFrame columns. On each executor JVM the model is loaded once, by the first task that
 * needs it, and shared by that JVM's tasks ({@link ExecutorModels}); each task batches its partition and runs
 * RLX with {@code spark.task.cpus} worker threads, so the executor's tasks together use its cores and no more.
 *
 * <pre>{@code
 * Dataset<Row> withVectors = RlxSpark.embed(docs, "text", "embedding", EmbedOptions.defaults());
 * Dataset<Row> scored = RlxSpark.onnx(table, "/models/scorer.onnx", List.of("features"), List.of("score"));
 * }</pre>
 *
 * <p>The same as Spark ML stages, for Pipelines: {@link RlxEmbedder} and {@link RlxOnnxTransformer}. Executors
 * need RLX's JVM flags: {@code --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED} in
 * {@code spark.executor.extraJavaOptions} (see the README).
 */
public final class RlxSpark {
    private RlxSpark() {}

    /**
     * {@code df} with column {@code outputColumn} added: the all-MiniLM-L6-v2 embedding of {@code textColumn}
     * ({@code array<float>}, 384 values of unit length, as {@link dev.rlx.onnx.embed.SentenceEmbedder} gives).
     * A null text gives a null embedding; an empty text is embedded (its [CLS] and [SEP] tokens); a text longer
     * than the tokenizer's limit is cut to it.
     *
     * @throws RlxSparkException if the text column is missing or not a string, or the output column exists
     */
    public static Dataset<Row> embed(Dataset<Row> df, String textColumn, String outputColumn, EmbedOptions options) {
        return embed(df, textColumn, outputColumn, options, new RlxTextModel(options.model(), options.maxLength()));
    }

    /** {@link #embed(Dataset, String, String, EmbedOptions)} with another encoder (the benchmarks' peer). */
    public static Dataset<Row> embed(Dataset<Row> df, String textColumn, String outputColumn, EmbedOptions options,
                                     TextModel model) {
        StructType schema = df.schema();
        StructType out = embedSchema(schema, textColumn, outputColumn);
        int index = columnIndex(schema, textColumn);
        return df.mapPartitions(new EmbedPartitions(model, options, index, textColumn), Encoders.row(out));
    }

    /** The schema {@link #embed} gives: {@code schema} with the embedding column appended. */
    static StructType embedSchema(StructType schema, String textColumn, String outputColumn) {
        int index = columnIndex(schema, textColumn);
        if (!schema.fields()[index].dataType().equals(DataTypes.StringType)) {
            throw new RlxSparkException("column '" + textColumn + "' is " + schema.fields()[index].dataType().simpleString()
                    + "; embeddings are of string columns");
        }
        if (List.of(schema.fieldNames()).contains(outputColumn)) {
            throw new RlxSparkException("output column '" + outputColumn + "' is already a column of the DataFrame");
        }
        List<StructField> f = new ArrayList<>(List.of(schema.fields()));
        f.add(DataTypes.createStructField(outputColumn, DataTypes.createArrayType(DataTypes.FloatType, false), true));
        return DataTypes.createStructType(f);
    }

    /**
     * {@code df} with the outputs of the ONNX model at {@code modelPath} as columns ({@code array<float>}, a row's
     * slice of each output, flattened): input column i feeds the model's input i (a number or an array of numbers
     * per row: the input's dims after the batch dim), output column j takes its output j. Rows with a null input
     * get null outputs.
     *
     * @param modelPath a file every executor can read, or the name of one shipped with {@code --files}
     * @throws RlxSparkException if the columns do not fit the model's declared inputs
     */
    public static Dataset<Row> onnx(Dataset<Row> df, String modelPath, List<String> inputColumns,
                                    List<String> outputColumns) {
        return onnx(df, modelPath, inputColumns, outputColumns, OnnxOptions.defaults());
    }

    /** {@link #onnx(Dataset, String, List, List)} with batching options. */
    public static Dataset<Row> onnx(Dataset<Row> df, String modelPath, List<String> inputColumns,
                                    List<String> outputColumns, OnnxOptions options) {
        RlxOnnxModel model = new RlxOnnxModel(modelPath);
        OnnxColumns cols = onnxColumns(model, df.schema(), inputColumns, outputColumns);
        return df.mapPartitions(new OnnxPartitions(model, cols, options), Encoders.row(cols.outputSchema(df.schema())));
    }

    static OnnxColumns onnxColumns(RlxOnnxModel model, StructType schema, List<String> inputColumns,
                                   List<String> outputColumns) {
        OnnxModel m = model.read();
        return OnnxColumns.check(m, model.path(), schema, inputColumns, outputColumns);
    }

    /** What this JVM holds of each model it loaded (in local mode, the executors' models too). */
    public static Map<String, ExecutorModels.Stats> executorStats() {
        return ExecutorModels.stats();
    }

    static int columnIndex(StructType schema, String column) {
        List<String> names = List.of(schema.fieldNames());
        int i = names.indexOf(column);
        if (i < 0) {
            throw new RlxSparkException("no column '" + column + "'; the DataFrame has " + names);
        }
        return i;
    }
}
