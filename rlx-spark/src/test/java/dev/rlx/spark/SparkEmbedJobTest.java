package dev.rlx.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The job behind {@code rlx spark-embed}: Parquet in, Parquet with an embedding column out. */
class SparkEmbedJobTest {
    @TempDir
    Path dir;

    @Test
    void parquetInParquetOut() {
        SparkSession spark = LocalSpark.session();
        List<String> texts = Arrays.asList("A cat sits.", null, "", "Rain in the city.", "Music plays.");
        String in = dir.resolve("in.parquet").toString();
        String out = dir.resolve("out.parquet").toString();
        EmbedTest.frame(spark, texts, 2).write().parquet(in);
        SparkEmbedJob job = new SparkEmbedJob(in, out, "text", "vec", "local[2]", false, EmbedOptions.defaults());
        SparkEmbedJob.Result r = job.run();
        assertEquals(5, r.rows());
        assertEquals(1, r.nullTexts());
        List<Row> rows = spark.read().parquet(out).orderBy("id").collectAsList();
        assertEquals(List.of("id", "text", "vec"), Arrays.asList(rows.get(0).schema().fieldNames()));
        assertEquals(384, rows.get(0).getList(2).size());
        assertTrue(rows.get(1).isNullAt(2));
        assertEquals(384, rows.get(2).getList(2).size(), "an empty text is embedded");
        assertTrue(!spark.sparkContext().isStopped(), "the job leaves a session it did not start running");

        assertThrows(AnalysisException.class, job::run, "the output exists and overwrite is off");
        SparkEmbedJob again = new SparkEmbedJob(in, out, "text", "vec", "local[2]", true, EmbedOptions.defaults());
        assertEquals(5, again.run().rows());
        RlxSparkException noColumn = assertThrows(RlxSparkException.class, () -> new SparkEmbedJob(in, out + "2", "body",
                "vec", "local[2]", false, EmbedOptions.defaults()).run());
        assertTrue(noColumn.getMessage().contains("no column 'body'"), noColumn.getMessage());
    }
}
