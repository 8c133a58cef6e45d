package dev.rlx.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.onnx.embed.MiniLm;
import dev.rlx.onnx.embed.SentenceEmbedder;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** RlxSpark.embed in local[2]: the same vectors as SentenceEmbedder, nulls, one model per JVM. */
class EmbedTest {
    /** Batching and padding change only float rounding: per component, the vectors' values are about 0.05. */
    static final float TOLERANCE = 2e-5f;
    static final StructType SCHEMA = DataTypes.createStructType(List.of(
            DataTypes.createStructField("id", DataTypes.IntegerType, false),
            DataTypes.createStructField("text", DataTypes.StringType, true)));

    /** The texts with their index as id, in {@code partitions} partitions of consecutive rows (the same every run). */
    static Dataset<Row> frame(SparkSession spark, List<String> texts, int partitions) {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < texts.size(); i++) {
            rows.add(RowFactory.create(i, texts.get(i)));
        }
        JavaRDD<Row> rdd = JavaSparkContext.fromSparkContext(spark.sparkContext()).parallelize(rows, partitions);
        return spark.createDataFrame(rdd, SCHEMA);
    }

    static float[] vector(Row r) {
        List<Float> l = r.getList(r.fieldIndex("embedding"));
        float[] v = new float[l.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = l.get(i);
        }
        return v;
    }

    @Test
    void twoThousandRows_equalSentenceEmbedderRowByRow_andTheModelIsLoadedOncePerJvm() {
        SparkSession spark = LocalSpark.session();
        ExecutorModels.clear();
        List<String> texts = Texts.random(2000, 27);
        EmbedOptions opts = EmbedOptions.defaults().withBatchSize(32).withBucket(8).withWindow(256);
        Dataset<Row> out = RlxSpark.embed(frame(spark, texts, 4), "text", "embedding", opts);
        assertEquals(DataTypes.createArrayType(DataTypes.FloatType, false), out.schema().apply("embedding").dataType());
        List<Row> rows = out.collectAsList();
        assertEquals(2000, rows.size());

        float[][] expected = reference(texts);
        float worst = 0;
        for (Row r : rows) {
            int id = r.getInt(0);
            assertEquals(texts.get(id), r.getString(1), "row " + id + " keeps its text");
            float[] got = vector(r);
            assertEquals(MiniLm.DIM, got.length);
            for (int d = 0; d < got.length; d++) {
                worst = Math.max(worst, Math.abs(got[d] - expected[id][d]));
            }
        }
        assertTrue(worst <= TOLERANCE, "largest difference " + worst);

        ExecutorModels.Stats first = RlxSpark.executorStats().get(new RlxTextModel(MiniLm.FP32, 0).key());
        assertNotNull(first, RlxSpark.executorStats().toString());
        assertEquals(1, first.loads());
        assertTrue(first.instances() >= 1 && first.instances() <= 2, "one encoder per concurrent task: " + first);
        assertEquals(first.instances(), first.idle(), "every task gave its encoder back: " + first);
        // all-MiniLM-L6-v2's f32 initializers once (OnnxRunnerWeightsTest), however many encoders the tasks made
        assertEquals(90_261_504L, first.weightBytes(), "one copy of the weights for every encoder: " + first);
        // sequence buckets of 8 up to 128 tokens, batches of 32 or a power of two below
        assertTrue(first.compiles() >= 2 && first.compiles() <= 16 * 6, first.toString());

        // more jobs on this JVM load nothing more, and the same job again compiles nothing more and gives the same bits
        Dataset<Row> small = frame(spark, texts.subList(0, 128), 2);
        List<Row> once = RlxSpark.embed(small, "text", "embedding", opts).collectAsList();
        ExecutorModels.Stats mid = RlxSpark.executorStats().get(first.key());
        List<Row> twice = RlxSpark.embed(small, "text", "embedding", opts).collectAsList();
        ExecutorModels.Stats last = RlxSpark.executorStats().get(first.key());
        assertEquals(1, last.loads(), last.toString());
        assertEquals(first.instances(), last.instances(), last.toString());
        assertEquals(mid.compiles(), last.compiles(), last.toString());
        assertEquals(once.size(), twice.size());
        for (int i = 0; i < once.size(); i++) {
            assertEquals(once.get(i).getInt(0), twice.get(i).getInt(0));
            assertArrayEquals(vector(once.get(i)), vector(twice.get(i)), "the same input gives the same bits");
        }
    }

    /**
     * Each text's embedding by SentenceEmbedder.embed, run on the texts in order of length, 64 at a time, so that
     * each call pads little (the reference would otherwise cost more than the job).
     */
    static float[][] reference(List<String> texts) {
        float[][] expected = new float[texts.size()][];
        try (Session s = new Session(Device.CPU, CompileOptions.defaults().withThreads(2));
             SentenceEmbedder e = SentenceEmbedder.of(MiniLm.FP32, s)) {
            Integer[] order = new Integer[texts.size()];
            int[] length = new int[texts.size()];
            for (int i = 0; i < order.length; i++) {
                order[i] = i;
                length[i] = e.tokenizer().encode(texts.get(i)).length();
            }
            Arrays.sort(order, (a, b) -> Integer.compare(length[a], length[b]));
            for (int from = 0; from < order.length; from += 64) {
                List<String> chunk = new ArrayList<>();
                for (int k = from; k < Math.min(order.length, from + 64); k++) {
                    chunk.add(texts.get(order[k]));
                }
                float[][] v = e.embed(chunk);
                for (int k = 0; k < v.length; k++) {
                    expected[order[from + k]] = v[k];
                }
            }
        }
        return expected;
    }

    @Test
    void nullTextGivesNull_emptyTextIsEmbedded() {
        SparkSession spark = LocalSpark.session();
        List<String> texts = Arrays.asList("A cat sits.", null, "", "  ", null, "The last one.");
        List<Row> rows = RlxSpark.embed(frame(spark, texts, 2), "text", "embedding", EmbedOptions.defaults().withBatchSize(2))
                .collectAsList();
        assertEquals(texts.size(), rows.size());
        try (Session s = new Session(Device.CPU); SentenceEmbedder e = SentenceEmbedder.of(MiniLm.FP32, s)) {
            for (Row r : rows) {
                String t = texts.get(r.getInt(0));
                if (t == null) {
                    assertTrue(r.isNullAt(2), "null text, null embedding");
                    continue;
                }
                float[] want = e.embed(List.of(t))[0];
                float[] got = vector(r);
                for (int d = 0; d < want.length; d++) {
                    assertEquals(want[d], got[d], TOLERANCE, "'" + t + "' [" + d + "]");
                }
            }
        }
    }

    @Test
    void badColumns_areTypedErrorsOnTheDriver() {
        SparkSession spark = LocalSpark.session();
        Dataset<Row> df = frame(spark, List.of("x"), 1);
        RlxSparkException missing = assertThrows(RlxSparkException.class,
                () -> RlxSpark.embed(df, "body", "embedding", EmbedOptions.defaults()));
        assertTrue(missing.getMessage().contains("'body'") && missing.getMessage().contains("[id, text]"), missing.getMessage());
        RlxSparkException notText = assertThrows(RlxSparkException.class,
                () -> RlxSpark.embed(df, "id", "embedding", EmbedOptions.defaults()));
        assertTrue(notText.getMessage().contains("'id' is int"), notText.getMessage());
        RlxSparkException exists = assertThrows(RlxSparkException.class,
                () -> RlxSpark.embed(df, "text", "id", EmbedOptions.defaults()));
        assertTrue(exists.getMessage().contains("'id' is already"), exists.getMessage());
        RlxSparkException range = assertThrows(RlxSparkException.class, () -> EmbedOptions.defaults().withBatchSize(0));
        assertTrue(range.getMessage().contains("batchSize must be in [1, 4096] but is 0"), range.getMessage());
    }

    @Test
    void batchShapes_areFewPowersOfTwo() {
        assertEquals(32, Batches.roundedBatch(32, 32));
        assertEquals(32, Batches.roundedBatch(17, 32));
        assertEquals(16, Batches.roundedBatch(16, 32));
        assertEquals(1, Batches.roundedBatch(1, 32));
        assertEquals(4, Batches.roundedBatch(3, 32));
        assertEquals(24, Batches.roundedBatch(20, 24), "never above the full batch");
        assertEquals(48, Batches.roundUp(33, 16));
        assertEquals(16, Batches.roundUp(16, 16));
    }
}
