package dev.rlx.spark;

import dev.rlx.onnx.embed.MiniLm;
import java.util.Locale;
import org.apache.spark.ml.Transformer;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsWritable;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;

/**
 * {@link RlxSpark#embed} as a Spark ML stage: adds {@code outputCol}, the all-MiniLM-L6-v2 embedding of
 * {@code inputCol}. Its params are {@link EmbedOptions}'; it saves and loads with a Pipeline.
 *
 * <pre>{@code
 * Pipeline p = new Pipeline().setStages(new PipelineStage[] {
 *     new RlxEmbedder().setInputCol("text").setOutputCol("embedding").setBatchSize(64)});
 * }</pre>
 */
public final class RlxEmbedder extends Transformer implements DefaultParamsWritable {
    private final String uid;
    private final Param<String> inputCol;
    private final Param<String> outputCol;
    private final Param<String> model;
    private final IntParam batchSize;
    private final IntParam bucket;
    private final IntParam window;
    private final IntParam maxLength;
    private final IntParam threads;

    public RlxEmbedder() {
        this(Identifiable$.MODULE$.randomUID("rlxEmbedder"));
    }

    public RlxEmbedder(String uid) {
        this.uid = uid;
        EmbedOptions d = EmbedOptions.defaults();
        inputCol = new Param<>(this, "inputCol", "the string column to embed");
        outputCol = new Param<>(this, "outputCol", "the array<float> column to add");
        model = new Param<>(this, "model", "all-MiniLM-L6-v2 variant: fp32 or int8",
                ParamValidators.inArray(new String[] {"fp32", "int8"}));
        batchSize = new IntParam(this, "batchSize", "texts per model run",
                ParamValidators.inRange(1, EmbedOptions.MAX_BATCH));
        bucket = new IntParam(this, "bucket", "sequence lengths are rounded up to a multiple of this",
                ParamValidators.inRange(1, MiniLm.MAX_POSITIONS));
        window = new IntParam(this, "window", "texts sorted by length together",
                ParamValidators.inRange(1, EmbedOptions.MAX_WINDOW));
        maxLength = new IntParam(this, "maxLength", "tokens kept per text, 0 for the tokenizer's",
                ParamValidators.inRange(0, MiniLm.MAX_POSITIONS));
        threads = new IntParam(this, "threads", "RLX threads per task, 0 for spark.task.cpus",
                ParamValidators.inRange(0, EmbedOptions.MAX_THREADS));
        setDefault(outputCol, "embedding");
        setDefault(model, "fp32");
        setDefault(batchSize, (Object) d.batchSize());
        setDefault(bucket, (Object) d.bucket());
        setDefault(window, (Object) d.window());
        setDefault(maxLength, (Object) d.maxLength());
        setDefault(threads, (Object) d.threads());
    }

    @Override
    public String uid() {
        return uid;
    }

    public Param<String> inputCol() {
        return inputCol;
    }

    public Param<String> outputCol() {
        return outputCol;
    }

    public Param<String> model() {
        return model;
    }

    public IntParam batchSize() {
        return batchSize;
    }

    public IntParam bucket() {
        return bucket;
    }

    public IntParam window() {
        return window;
    }

    public IntParam maxLength() {
        return maxLength;
    }

    public IntParam threads() {
        return threads;
    }

    public RlxEmbedder setInputCol(String v) {
        set(inputCol, v);
        return this;
    }

    public RlxEmbedder setOutputCol(String v) {
        set(outputCol, v);
        return this;
    }

    public RlxEmbedder setModel(String v) {
        set(model, v);
        return this;
    }

    public RlxEmbedder setBatchSize(int v) {
        set(batchSize, (Object) v);
        return this;
    }

    public RlxEmbedder setBucket(int v) {
        set(bucket, (Object) v);
        return this;
    }

    public RlxEmbedder setWindow(int v) {
        set(window, (Object) v);
        return this;
    }

    public RlxEmbedder setMaxLength(int v) {
        set(maxLength, (Object) v);
        return this;
    }

    public RlxEmbedder setThreads(int v) {
        set(threads, (Object) v);
        return this;
    }

    /** The stage's params as options. */
    public EmbedOptions options() {
        return new EmbedOptions(MiniLm.valueOf(getOrDefault(model).toUpperCase(Locale.ROOT)), intParam(batchSize),
                intParam(bucket), intParam(window), intParam(maxLength), intParam(threads));
    }

    @Override
    public Dataset<Row> transform(Dataset<?> dataset) {
        return RlxSpark.embed(dataset.toDF(), input(), getOrDefault(outputCol), options());
    }

    @Override
    public StructType transformSchema(StructType schema) {
        return RlxSpark.embedSchema(schema, input(), getOrDefault(outputCol));
    }

    @Override
    public RlxEmbedder copy(ParamMap extra) {
        return defaultCopy(extra);
    }

    /** The reader {@code Pipeline.load} and {@link #load} use. */
    public static MLReader<RlxEmbedder> read() {
        return new DefaultParamsReader<>();
    }

    public static RlxEmbedder load(String path) {
        return read().load(path);
    }

    private String input() {
        if (!isDefined(inputCol)) {
            throw new RlxSparkException("RlxEmbedder " + uid + ": inputCol is not set");
        }
        return getOrDefault(inputCol);
    }

    private int intParam(IntParam p) {
        return (Integer) getOrDefault(p);
    }
}
