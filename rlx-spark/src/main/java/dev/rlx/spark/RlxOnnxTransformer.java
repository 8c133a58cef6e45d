package dev.rlx.spark;

import java.util.List;
import org.apache.spark.ml.Transformer;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.param.StringArrayParam;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsWritable;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;

/**
 * {@link RlxSpark#onnx} as a Spark ML stage: the outputs of the ONNX model at {@code modelPath} as columns. It
 * saves the model's path, not the model, with a Pipeline.
 */
public final class RlxOnnxTransformer extends Transformer implements DefaultParamsWritable {
    private final String uid;
    private final Param<String> modelPath;
    private final StringArrayParam inputCols;
    private final StringArrayParam outputCols;
    private final IntParam batchSize;
    private final IntParam threads;

    public RlxOnnxTransformer() {
        this(Identifiable$.MODULE$.randomUID("rlxOnnx"));
    }

    public RlxOnnxTransformer(String uid) {
        this.uid = uid;
        OnnxOptions d = OnnxOptions.defaults();
        modelPath = new Param<>(this, "modelPath", "the .onnx file: a path every executor reads, or a --files name");
        inputCols = new StringArrayParam(this, "inputCols", "the columns feeding the model's inputs, in order");
        outputCols = new StringArrayParam(this, "outputCols", "the columns taking the model's outputs, in order");
        batchSize = new IntParam(this, "batchSize", "rows per model run when the batch dim is symbolic",
                ParamValidators.inRange(1, EmbedOptions.MAX_BATCH));
        threads = new IntParam(this, "threads", "RLX threads per task, 0 for spark.task.cpus",
                ParamValidators.inRange(0, EmbedOptions.MAX_THREADS));
        setDefault(batchSize, (Object) d.batchSize());
        setDefault(threads, (Object) d.threads());
    }

    @Override
    public String uid() {
        return uid;
    }

    public Param<String> modelPath() {
        return modelPath;
    }

    public StringArrayParam inputCols() {
        return inputCols;
    }

    public StringArrayParam outputCols() {
        return outputCols;
    }

    public IntParam batchSize() {
        return batchSize;
    }

    public IntParam threads() {
        return threads;
    }

    public RlxOnnxTransformer setModelPath(String v) {
        set(modelPath, v);
        return this;
    }

    public RlxOnnxTransformer setInputCols(String... v) {
        set(inputCols, v);
        return this;
    }

    public RlxOnnxTransformer setOutputCols(String... v) {
        set(outputCols, v);
        return this;
    }

    public RlxOnnxTransformer setBatchSize(int v) {
        set(batchSize, (Object) v);
        return this;
    }

    public RlxOnnxTransformer setThreads(int v) {
        set(threads, (Object) v);
        return this;
    }

    public OnnxOptions options() {
        return new OnnxOptions((Integer) getOrDefault(batchSize), (Integer) getOrDefault(threads));
    }

    @Override
    public Dataset<Row> transform(Dataset<?> dataset) {
        return RlxSpark.onnx(dataset.toDF(), required(modelPath), List.of(required(inputCols)),
                List.of(required(outputCols)), options());
    }

    @Override
    public StructType transformSchema(StructType schema) {
        return RlxSpark.onnxColumns(new RlxOnnxModel(required(modelPath)), schema, List.of(required(inputCols)),
                List.of(required(outputCols))).outputSchema(schema);
    }

    @Override
    public RlxOnnxTransformer copy(ParamMap extra) {
        return defaultCopy(extra);
    }

    public static MLReader<RlxOnnxTransformer> read() {
        return new DefaultParamsReader<>();
    }

    public static RlxOnnxTransformer load(String path) {
        return read().load(path);
    }

    private <T> T required(Param<T> p) {
        if (!isDefined(p)) {
            throw new RlxSparkException("RlxOnnxTransformer " + uid + ": " + p.name() + " is not set");
        }
        return getOrDefault(p);
    }
}
