package dev.rlx.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The job behind {@code rlx spark-embed}: Parquet in, Parquet with an embedding column out. */
class SparkEmbedJobTest {
    /** EmbedTest's null test batches the same way, so this test reuses its compiled shapes. */
    static final EmbedOptions OPTIONS = EmbedOptions.defaults().withBatchSize(2);

    @TempDir
    Path dir;

    @Test
    void parquetInParquetOut() {
        SparkSession spark = LocalSpark.session();
        List<String> texts = Arrays.asList("A cat sits.", null, "", "Rain in the city.", "Music plays.");
        String in = dir.resolve("in.parquet").toString();
        String out = dir.resolve("out.parquet").toString();
        EmbedTest.frame(spark, texts, 2).write().parquet(in);
        SparkEmbedJob job = new SparkEmbedJob(in, out, "text", "vec", "local[2]", false, OPTIONS);
        SparkEmbedJob.Result r = job.run();
        assertEquals(5, r.rows());
        assertEquals(1, r.nullTexts());
        List<Row> rows = spark.read().parquet(out).orderBy("id").collectAsList();
        assertEquals(List.of("id", "text", "vec"), Arrays.asList(rows.get(0).schema().fieldNames()));
        assertEquals(384, rows.get(0).getList(2).size());
        assertTrue(rows.get(1).isNullAt(2));
        assertEquals(384, rows.get(2).getList(2).size(), "an empty text is embedded");
        assertTrue(!spark.sparkContext().isStopped(), "the job leaves a session it did not start running");

        RlxSparkException exists = assertThrows(RlxSparkException.class, job::run, "the output exists, overwrite is off");
        assertTrue(exists.getMessage().contains(out) && exists.getMessage().contains("already exists"), exists.getMessage());
        SparkEmbedJob again = new SparkEmbedJob(in, out, "text", "vec", "local[2]", true, OPTIONS);
        assertEquals(5, again.run().rows());
        RlxSparkException noColumn = assertThrows(RlxSparkException.class, () -> new SparkEmbedJob(in, out + "2", "body",
                "vec", "local[2]", false, OPTIONS).run());
        assertTrue(noColumn.getMessage().contains("no column 'body'"), noColumn.getMessage());
        RlxSparkException noInput = assertThrows(RlxSparkException.class, () -> new SparkEmbedJob(in + "-none", out + "3",
                "text", "vec", "local[2]", false, OPTIONS).run());
        assertTrue(noInput.getMessage().contains("PATH_NOT_FOUND") && noInput.getMessage().contains("-none"),
                noInput.getMessage());
    }
}
