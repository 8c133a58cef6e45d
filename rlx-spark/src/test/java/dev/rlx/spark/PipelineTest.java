package dev.rlx.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The transformers in a Pipeline: params, schema, save and load. */
class PipelineTest {
    @TempDir
    Path dir;

    @Test
    void pipelineWithBothStages_savesLoadsAndTransformsTheSame() throws IOException {
        SparkSession spark = LocalSpark.session();
        Path model = OnnxColumnTest.tinyModel(dir);
        RlxEmbedder embedder = new RlxEmbedder().setInputCol("text").setOutputCol("vec").setBatchSize(8).setBucket(8)
                .setModel("fp32").setMaxLength(64);
        RlxOnnxTransformer onnx = new RlxOnnxTransformer().setModelPath(model.toString()).setInputCols("features")
                .setOutputCols("y", "s").setBatchSize(4);
        Pipeline pipeline = new Pipeline().setStages(new PipelineStage[] {embedder, onnx});

        StructType in = DataTypes.createStructType(List.of(
                DataTypes.createStructField("text", DataTypes.StringType, true),
                DataTypes.createStructField("features", DataTypes.createArrayType(DataTypes.FloatType, true), true)));
        StructType out = pipeline.transformSchema(in);
        assertEquals(List.of("text", "features", "vec", "y", "s"), Arrays.asList(out.fieldNames()));
        assertEquals(DataTypes.createArrayType(DataTypes.FloatType, false), out.apply("vec").dataType());

        List<Row> rows = List.of(
                org.apache.spark.sql.RowFactory.create("A cat sits.", List.of(1f, 2f, 3f, 4f, 5f, 6f)),
                org.apache.spark.sql.RowFactory.create(null, List.of(-1f, 0f, 1f, 0f, -1f, 0.5f)),
                org.apache.spark.sql.RowFactory.create("Rain in the city.", null));
        Dataset<Row> df = spark.createDataFrame(rows, in).coalesce(1);
        PipelineModel fitted = pipeline.fit(df);
        String path = dir.resolve("pipeline").toString();
        fitted.write().overwrite().save(path);
        PipelineModel loaded = PipelineModel.load(path);

        RlxEmbedder e2 = assertInstanceOf(RlxEmbedder.class, loaded.stages()[0]);
        assertEquals(embedder.options(), e2.options());
        assertEquals("vec", e2.getOrDefault(e2.outputCol()));
        RlxOnnxTransformer o2 = assertInstanceOf(RlxOnnxTransformer.class, loaded.stages()[1]);
        assertEquals(onnx.options(), o2.options());
        assertArrayEquals(new String[] {"y", "s"}, o2.getOrDefault(o2.outputCols()));
        assertEquals(model.toString(), o2.getOrDefault(o2.modelPath()));

        List<Row> a = fitted.transform(df).collectAsList();
        List<Row> b = loaded.transform(df).collectAsList();
        assertEquals(3, b.size());
        // the same numbers to float rounding (a model's first runs, before the JIT compiles its vector kernels, can
        // round differently in the last bit)
        for (int i = 0; i < a.size(); i++) {
            for (StructField f : out.fields()) {
                Object x = a.get(i).getAs(f.name());
                Object y = b.get(i).getAs(f.name());
                if (x instanceof scala.collection.Seq<?> sx && y instanceof scala.collection.Seq<?> sy) {
                    float[] fx = OnnxColumnTest.floats(scala.jdk.javaapi.CollectionConverters.asJava(sx));
                    float[] fy = OnnxColumnTest.floats(scala.jdk.javaapi.CollectionConverters.asJava(sy));
                    assertArrayEquals(fx, fy, 1e-5f, f.name() + " of row " + i);
                } else {
                    assertEquals(String.valueOf(x), String.valueOf(y), f.name() + " of row " + i);
                }
            }
        }
        assertEquals(true, b.get(1).isNullAt(2), "null text, null vector");
        assertEquals(true, b.get(2).isNullAt(3), "null features, null y");
    }
}
