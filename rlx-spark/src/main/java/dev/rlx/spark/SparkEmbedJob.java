package dev.rlx.spark;

import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;

/**
 * The job of {@code rlx spark-embed}: read a Parquet data set, add the embedding of its text column, write
 * Parquet. Runs on the Spark session already active in this JVM (under {@code spark-submit}, whose master and
 * settings win), else on a session it starts with {@code master} (unless spark-submit set {@code spark.master})
 * and stops at the end.
 *
 * @param input        Parquet file or folder to read
 * @param output       Parquet folder to write (must not exist, unless {@code overwrite})
 * @param textColumn   the string column to embed
 * @param outputColumn the {@code array<float>} column to add
 * @param master       Spark master of a session this job starts, e.g. {@code local[*]} or {@code spark://host:7077}
 * @param overwrite    replace {@code output} if it exists
 * @param options      batching and model
 */
public record SparkEmbedJob(String input, String output, String textColumn, String outputColumn, String master,
                            boolean overwrite, EmbedOptions options) {
    /** What the job did. */
    public record Result(long rows, long nullTexts, int partitions, double seconds) {}

    /**
     * Runs the job.
     *
     * @throws RlxSparkException if the input is missing or unreadable, the output exists (without overwrite), or
     *     the text column is missing or not a string
     */
    public Result run() {
        boolean ours = SparkSession.getActiveSession().isEmpty() && SparkSession.getDefaultSession().isEmpty();
        SparkSession spark = ours ? start() : SparkSession.active();
        try {
            long t0 = System.nanoTime();
            Dataset<Row> in = spark.read().parquet(input);
            Dataset<Row> out = RlxSpark.embed(in, textColumn, outputColumn, options);
            out.write().mode(overwrite ? SaveMode.Overwrite : SaveMode.ErrorIfExists).parquet(output);
            Dataset<Row> written = spark.read().parquet(output);
            long rows = written.count();
            long nulls = written.filter(written.col(outputColumn).isNull()).count();
            return new Result(rows, nulls, in.rdd().getNumPartitions(), (System.nanoTime() - t0) / 1e9);
        } catch (Exception e) { // Spark's AnalysisException is checked in Java's eyes but undeclared
            if (e instanceof AnalysisException) {
                throw new RlxSparkException(input + " -> " + output + ": " + e.getMessage(), e);
            }
            if (e instanceof RuntimeException r) {
                throw r;
            }
            throw new RlxSparkException(input + " -> " + output + ": " + e, e);
        } finally {
            if (ours) {
                spark.stop();
            }
        }
    }

    private SparkSession start() {
        SparkSession.Builder b = SparkSession.builder().appName("rlx spark-embed")
                .config("spark.ui.showConsoleProgress", "false");
        String submitted = System.getProperty("spark.master"); // set by spark-submit, whose master wins
        if (submitted == null) {
            b.master(master);
        }
        if ((submitted == null ? master : submitted).startsWith("local")) {
            b.config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
                    .config("spark.ui.enabled", "false");
        }
        SparkSession s = b.getOrCreate();
        s.sparkContext().setLogLevel("WARN");
        return s;
    }
}
