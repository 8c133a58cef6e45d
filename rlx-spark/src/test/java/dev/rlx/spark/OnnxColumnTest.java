package dev.rlx.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.Tensor;
import dev.rlx.onnx.OnnxModel;
import dev.rlx.onnx.OnnxRunner;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.spark.SparkException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** RlxSpark.onnx in local[2]: an ONNX model's outputs as columns, equal to OnnxRunner's. */
class OnnxColumnTest {
    static final StructType SCHEMA = DataTypes.createStructType(List.of(
            DataTypes.createStructField("id", DataTypes.IntegerType, false),
            DataTypes.createStructField("features", DataTypes.createArrayType(DataTypes.FloatType, true), true)));

    @TempDir
    Path dir;

    static Path tinyModel(Path dir) throws IOException {
        return Files.write(dir.resolve("tiny.onnx"), TinyOnnx.model(11));
    }

    static List<Row> rows(int n, long seed, int nullEvery) {
        Random r = new Random(seed);
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (nullEvery > 0 && i % nullEvery == nullEvery - 1) {
                rows.add(RowFactory.create(i, null));
                continue;
            }
            List<Float> f = new ArrayList<>();
            for (int k = 0; k < TinyOnnx.IN; k++) {
                f.add((float) (r.nextGaussian() * 2));
            }
            rows.add(RowFactory.create(i, f));
        }
        return rows;
    }

    static float[] floats(List<?> l) {
        float[] v = new float[l.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = ((Number) l.get(i)).floatValue();
        }
        return v;
    }

    @Test
    void modelColumns_equalOnnxRunner_andNullInputsGiveNullOutputs() throws IOException {
        SparkSession spark = LocalSpark.session();
        Path model = tinyModel(dir);
        List<Row> input = rows(301, 5, 7);
        Dataset<Row> df = spark.createDataFrame(input, SCHEMA).repartition(3);
        List<Row> out = RlxSpark.onnx(df, model.toString(), List.of("features"), List.of("y", "s"),
                OnnxOptions.defaults().withBatchSize(16)).collectAsList();
        assertEquals(301, out.size());

        int live = 0;
        for (Row r : input) {
            live += r.isNullAt(1) ? 0 : 1;
        }
        float[] x = new float[live * TinyOnnx.IN];
        int[] slot = new int[input.size()];
        int k = 0;
        for (Row r : input) {
            if (r.isNullAt(1)) {
                slot[r.getInt(0)] = -1;
                continue;
            }
            System.arraycopy(floats((List<?>) r.get(1)), 0, x, k * TinyOnnx.IN, TinyOnnx.IN);
            slot[r.getInt(0)] = k++;
        }
        float[] y;
        float[] s;
        try (Session session = new Session(Device.CPU);
             OnnxRunner runner = new OnnxRunner(OnnxModel.load(model), session)) {
            Map<String, Tensor> res = runner.run(Map.of("x", Tensor.of(x, live, TinyOnnx.IN)));
            y = res.get("y").toFloatArray();
            s = res.get("s").toFloatArray();
        }
        for (Row r : out) {
            int id = r.getInt(0);
            if (slot[id] < 0) {
                assertTrue(r.isNullAt(2) && r.isNullAt(3), "row " + id + ": null input, null outputs");
                continue;
            }
            float[] gy = floats(r.getList(2));
            float[] gs = floats(r.getList(3));
            assertEquals(TinyOnnx.OUT, gy.length);
            for (int j = 0; j < TinyOnnx.OUT; j++) {
                assertEquals(y[slot[id] * TinyOnnx.OUT + j], gy[j], 1e-6f, "row " + id + " y[" + j + "]");
                assertEquals(s[slot[id] * TinyOnnx.OUT + j], gs[j], 1e-6f, "row " + id + " s[" + j + "]");
            }
        }
    }

    @Test
    void aRowOfTheWrongLength_failsTheTaskNamingPartitionAndRow() throws IOException {
        SparkSession spark = LocalSpark.session();
        Path model = tinyModel(dir);
        List<Row> input = new ArrayList<>(rows(10, 9, 0));
        input.set(6, RowFactory.create(6, List.of(1f, 2f, 3f)));
        Dataset<Row> df = spark.createDataFrame(input, SCHEMA).coalesce(1);
        SparkException e = assertThrows(SparkException.class,
                () -> RlxSpark.onnx(df, model.toString(), List.of("features"), List.of("y")).collect());
        Throwable cause = e;
        while (cause != null && !(cause instanceof PartitionInferenceException)) {
            cause = cause.getCause();
        }
        String message = cause != null ? cause.getMessage() : e.getMessage();
        assertTrue(message.contains("partition 0, row 6") && message.contains("has 3 values where the batch's first row "
                + "has 6"), message);
        input.set(0, RowFactory.create(0, List.of(1f, 2f)));
        SparkException first = assertThrows(SparkException.class, () -> RlxSpark.onnx(spark.createDataFrame(input, SCHEMA)
                .coalesce(1), model.toString(), List.of("features"), List.of("y")).collect());
        assertTrue(first.getMessage().contains("partition 0, row 0") && first.getMessage().contains("has 2 values; input "
                + "'x' takes 6 per row"), first.getMessage());
    }

    @Test
    void columnsThatDoNotFitTheModel_areTypedErrorsOnTheDriver() throws IOException {
        SparkSession spark = LocalSpark.session();
        Path model = tinyModel(dir);
        Dataset<Row> df = spark.createDataFrame(rows(3, 1, 0), SCHEMA);
        RlxSparkException two = assertThrows(RlxSparkException.class,
                () -> RlxSpark.onnx(df, model.toString(), List.of("features", "id"), List.of("y")));
        assertTrue(two.getMessage().contains("has 1 inputs [x] but 2 input columns"), two.getMessage());
        RlxSparkException scalar = assertThrows(RlxSparkException.class,
                () -> RlxSpark.onnx(df, model.toString(), List.of("id"), List.of("y")));
        assertTrue(scalar.getMessage().contains("column 'id' holds one number per row"), scalar.getMessage());
        RlxSparkException outs = assertThrows(RlxSparkException.class,
                () -> RlxSpark.onnx(df, model.toString(), List.of("features"), List.of("a", "b", "c")));
        assertTrue(outs.getMessage().contains("has 2 outputs [y, s] but 3 output columns"), outs.getMessage());
        RlxSparkException file = assertThrows(RlxSparkException.class,
                () -> RlxSpark.onnx(df, dir.resolve("none.onnx").toString(), List.of("features"), List.of("y")));
        assertTrue(file.getMessage().contains("none.onnx is not a file"), file.getMessage());
    }
}
