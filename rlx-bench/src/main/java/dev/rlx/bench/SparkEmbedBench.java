package dev.rlx.bench;

import dev.rlx.onnx.embed.MiniLm;
import dev.rlx.onnx.text.Encoding;
import dev.rlx.spark.EmbedOptions;
import dev.rlx.spark.LengthBuckets;
import dev.rlx.spark.RlxSpark;
import dev.rlx.spark.RlxTextModel;
import dev.rlx.spark.TextEncoder;
import dev.rlx.spark.TextModel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code ./rlx-bench/run spark-embed [--rows N] [--rounds R] [--partitions P]}: all-MiniLM-L6-v2 embeddings of
 * N short texts (default 50,000) three ways, alternated round by round in one process: RLX alone (one
 * SentenceEmbedder on 2 threads, the same length-sorted batches, no Spark), RLX on Spark ({@code local[2]},
 * {@link RlxSpark#embed}, one RLX thread per task), and ONNX Runtime on Spark (the same job, tokenization,
 * batches and pooling, with a per-executor ORT session as the encoder). Prints each side's rows/s per round, the
 * medians and the ratios. Every side is warmed up first (each batch shape compiled, the JIT warm).
 */
public final class SparkEmbedBench {
    private static final String[] WORDS = ("the a cat dog sits runs on under table garden quickly slowly red blue "
            + "river mountain city people music plays reads book paper machine learning model data compute fast small "
            + "large bright night morning coffee tea rain snow wind summer winter train station bridge").split(" ");

    private SparkEmbedBench() {}

    public static void main(String[] args) {
        int rows = 50_000;
        int rounds = 3;
        int partitions = 8;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rows" -> rows = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--partitions" -> partitions = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + "; spark-embed takes --rows N --rounds R --partitions P");
            }
        }
        List<String> texts = texts(rows, 42);
        EmbedOptions opts = EmbedOptions.defaults();
        SparkSession spark = SparkSession.builder().master("local[2]").appName("rlx spark-embed benchmark")
                .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.ui.enabled", "false").getOrCreate();
        spark.sparkContext().setLogLevel("WARN");
        try {
            Dataset<Row> df = frame(spark, texts, partitions).cache();
            df.count();
            int warmRows = Math.min(rows, 600);
            Dataset<Row> warm = frame(spark, texts.subList(0, warmRows), partitions);
            System.out.flush();
            Map<String, Side> sides = new LinkedHashMap<>();
            TextModel rlx = new RlxTextModel(opts.model(), 0);
            TextModel ort = new OrtTextModel(opts.model());
            sides.put("rlx alone (2 threads)", n -> alone(n == 0 ? texts : texts.subList(0, n), opts));
            sides.put("rlx on spark local[2]", n -> job(n == 0 ? df : warm, opts, rlx));
            sides.put("ort on spark local[2]", n -> job(n == 0 ? df : warm, opts, ort));
            for (Map.Entry<String, Side> s : sides.entrySet()) {
                long t0 = System.nanoTime();
                s.getValue().run(warmRows); // warm-up: every shape compiled, the JIT warm
                System.out.printf(Locale.ROOT, "warm-up  %-24s %6.1f s%n", s.getKey(), (System.nanoTime() - t0) / 1e9);
            }
            Map<String, double[]> rates = new LinkedHashMap<>();
            sides.keySet().forEach(k -> rates.put(k, new double[0]));
            List<String> names = new ArrayList<>(sides.keySet());
            for (int r = 0; r < rounds; r++) {
                for (int k = 0; k < names.size(); k++) {
                    String name = names.get((k + r) % names.size()); // rotate who goes first
                    long t0 = System.nanoTime();
                    sides.get(name).run(0);
                    double rate = rows / ((System.nanoTime() - t0) / 1e9);
                    double[] a = Arrays.copyOf(rates.get(name), rates.get(name).length + 1);
                    a[a.length - 1] = rate;
                    rates.put(name, a);
                    System.out.printf(Locale.ROOT, "round %d  %-24s %9.1f rows/s%n", r + 1, name, rate);
                }
            }
            System.out.printf(Locale.ROOT, "%nall-MiniLM-L6-v2 fp32, %,d texts, %d partitions, batch %d, bucket %d, window %d%n",
                    rows, partitions, opts.batchSize(), opts.bucket(), opts.window());
            Map<String, Double> median = new LinkedHashMap<>();
            rates.forEach((k, v) -> {
                double[] s = v.clone();
                Arrays.sort(s);
                median.put(k, s[s.length / 2]);
                System.out.printf(Locale.ROOT, "%-24s median %9.1f rows/s  (rounds: %s)%n", k, s[s.length / 2],
                        Arrays.toString(v));
            });
            double alone = median.get(names.get(0));
            double onSpark = median.get(names.get(1));
            double ortSpark = median.get(names.get(2));
            System.out.printf(Locale.ROOT, "rlx on spark / rlx alone (same 2 cores): %.2f%n", onSpark / alone);
            System.out.printf(Locale.ROOT, "rlx on spark / ort on spark:             %.2f%n", onSpark / ortSpark);
            System.out.println("executor models: " + RlxSpark.executorStats().values());
        } finally {
            spark.stop();
        }
    }

    interface Side {
        /** Runs the side over the whole data set (0) or its first {@code n} texts (warm-up). */
        void run(int n);
    }

    /** RLX without Spark: the texts in windows, sorted and bucketed as a task does, on one 2-thread embedder. */
    private static void alone(List<String> texts, EmbedOptions opts) {
        TextModel.Loaded m = ALONE.get();
        TextEncoder e = ENCODER.get();
        double sink = 0;
        for (int from = 0; from < texts.size(); from += opts.window()) {
            List<String> w = texts.subList(from, Math.min(texts.size(), from + opts.window()));
            Encoding[] enc = new Encoding[w.size()];
            for (int i = 0; i < enc.length; i++) {
                enc[i] = m.tokenizer().encode(w.get(i));
            }
            float[][] v = LengthBuckets.embed(enc, e, opts, m.tokenizer().maxLength(), 0, from, "text");
            sink += v[0][0];
        }
        if (Double.isNaN(sink)) {
            throw new IllegalStateException("NaN embedding");
        }
    }

    private static final java.util.function.Supplier<TextModel.Loaded> ALONE = memo(() ->
            new RlxTextModel(MiniLm.FP32, 0).load());
    private static final java.util.function.Supplier<TextEncoder> ENCODER = memo(() -> ALONE.get().open(2));

    private static <T> java.util.function.Supplier<T> memo(java.util.function.Supplier<T> s) {
        Object[] held = new Object[1];
        return () -> {
            synchronized (held) {
                if (held[0] == null) {
                    held[0] = s.get();
                }
                @SuppressWarnings("unchecked")
                T t = (T) held[0];
                return t;
            }
        };
    }

    /** The Spark job: the embedding column, summed so that every row's vector is computed. */
    private static void job(Dataset<Row> df, EmbedOptions opts, TextModel model) {
        Row r = RlxSpark.embed(df, "text", "embedding", opts, model)
                .agg(functions.sum(functions.element_at(functions.col("embedding"), 1))).first();
        if (r.isNullAt(0)) {
            throw new IllegalStateException("no embeddings");
        }
    }

    private static Dataset<Row> frame(SparkSession spark, List<String> texts, int partitions) {
        StructType schema = DataTypes.createStructType(List.of(
                DataTypes.createStructField("id", DataTypes.IntegerType, false),
                DataTypes.createStructField("text", DataTypes.StringType, true)));
        List<Row> rows = new ArrayList<>(texts.size());
        for (int i = 0; i < texts.size(); i++) {
            rows.add(RowFactory.create(i, texts.get(i)));
        }
        return spark.createDataFrame(JavaSparkContext.fromSparkContext(spark.sparkContext()).parallelize(rows, partitions),
                schema);
    }

    /** Short texts: 1 to 8 words, one in ten up to 20. */
    static List<String> texts(int n, long seed) {
        Random r = new Random(seed);
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int words = 1 + r.nextInt(r.nextInt(10) == 0 ? 20 : 8);
            StringBuilder b = new StringBuilder();
            for (int w = 0; w < words; w++) {
                b.append(w == 0 ? "" : " ").append(WORDS[r.nextInt(WORDS.length)]);
            }
            out.add(b.append('.').toString());
        }
        return out;
    }
}
