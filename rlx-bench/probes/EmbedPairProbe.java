/*
 * How fast RLX's MiniLM encoder runs a Spark job's batches outside Spark (issue 27, "RLX on Spark below ONNX
 * Runtime on Spark"): T threads, each with its own SentenceEmbedder on a 1-thread session (as Spark's tasks),
 * reading one shared weight set ("shared") or one set each ("own"), embed 2,048 short texts (1 to 8 words) in
 * batches of 32, six rounds; prints the aggregate rows/s per round. On the AMD EPYC VM, last round: shared x1 535,
 * own x2 900, shared x2 from 680 to 1,030 over six JVMs (the process-dependent speed of issue 29), where the
 * spark-embed job reached 717 (RLX) and 782 (ONNX Runtime) on the same 2 vCPUs.
 *
 *   cd rlx-bench && mvn -q dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt && cd ..
 *   java --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED -cp "$(cat /tmp/cp.txt)" \
 *       rlx-bench/probes/EmbedPairProbe.java shared 2
 */
import dev.rlx.onnx.embed.MiniLm;
import dev.rlx.onnx.embed.SentenceEmbedder;
import dev.rlx.runtime.*;
import java.util.*;
import java.util.concurrent.*;

/** Aggregate rows/s of T one-thread embedders over Spark-like batches, shared or own weights. */
public class EmbedPairProbe {
    public static void main(String[] a) throws Exception {
        boolean shared = a[0].equals("shared");
        int tasks = Integer.parseInt(a[1]);
        if (a.length != 2 || !(a[0].equals("shared") || a[0].equals("own"))) {
            System.err.println("usage: EmbedPairProbe <shared|own> <threads>");
            System.exit(2);
        }
        String[] words = {"spark", "the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "data", "frame", "model", "vector", "embedding", "search", "query"};
        Random r = new Random(42);
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < 2048; i++) {
            int n = 1 + r.nextInt(8);
            StringBuilder b = new StringBuilder();
            for (int w = 0; w < n; w++) b.append(w == 0 ? "" : " ").append(words[r.nextInt(words.length)]);
            texts.add(b.append('.').toString());
        }
        Session owner = new Session(Device.CPU, CompileOptions.defaults().withThreads(1));
        WeightSet ws = owner.newWeightSet("shared");
        ExecutorService pool = Executors.newFixedThreadPool(tasks);
        List<SentenceEmbedder> es = new ArrayList<>();
        for (int t = 0; t < tasks; t++) {
            Session s = new Session(Device.CPU, CompileOptions.defaults().withThreads(1));
            es.add(new SentenceEmbedder(MiniLm.FP32.model(), MiniLm.FP32.tokenizer(), s, shared ? ws : null));
        }
        for (int round = 0; round < 6; round++) {
            long t0 = System.nanoTime();
            List<Future<?>> fs = new ArrayList<>();
            for (SentenceEmbedder e : es) {
                fs.add(pool.submit(() -> { for (int i = 0; i < texts.size(); i += 32) e.embed(texts.subList(i, i + 32)); }));
            }
            for (Future<?> f : fs) f.get();
            System.out.printf("%s x%d round %d: %.1f rows/s%n", a[0], tasks, round, tasks * texts.size() / ((System.nanoTime() - t0) / 1e9));
        }
        pool.shutdown();
        System.exit(0);
    }
}
