package dev.rlx.cli;

import dev.rlx.onnx.embed.MiniLm;
import dev.rlx.spark.EmbedOptions;
import dev.rlx.spark.SparkEmbedJob;
import java.util.Locale;

/** The part of {@code rlx spark-embed} that needs Spark: loaded only once the command has found Spark. */
final class SparkEmbedRun {
    private SparkEmbedRun() {}

    /** Runs the job and says what it did. */
    static String run(SparkEmbedCommand c) {
        EmbedOptions o = EmbedOptions.defaults().withModel(c.int8 ? MiniLm.INT8 : MiniLm.FP32).withBatchSize(c.batchSize)
                .withBucket(c.bucket).withMaxLength(c.maxLength);
        SparkEmbedJob.Result r = new SparkEmbedJob(c.input, c.output, c.textColumn, c.outputColumn, c.master, c.overwrite, o)
                .run();
        return String.format(Locale.ROOT, "rlx spark-embed: %,d rows (%,d null texts) from %d partitions embedded into %s "
                + "in %.1f s (%.0f rows/s)", r.rows(), r.nullTexts(), r.partitions(), c.output, r.seconds(),
                r.rows() / Math.max(r.seconds(), 1e-9));
    }
}
