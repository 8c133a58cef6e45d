package dev.rlx.spark;

import dev.rlx.ir.Tensor;
import dev.rlx.onnx.OnnxBinding;
import dev.rlx.onnx.OnnxModel;
import dev.rlx.onnx.OnnxRunner;
import dev.rlx.runtime.CompileCache;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.spark.SparkFiles;

/**
 * An ONNX model file on RLX's CPU backend, loaded once per JVM: the parsed model and a compile cache of its own;
 * per task an {@link OnnxRunner} on a session with the task's thread count.
 *
 * @param path the file as given: a path every executor can read, or the name of a file shipped with
 *             {@code spark-submit --files} ({@link SparkFiles})
 */
record RlxOnnxModel(String path) implements Serializable {
    String key() {
        return "rlx-onnx:" + path;
    }

    /** The model file on this machine. */
    Path resolve() {
        Path p = Path.of(path);
        if (Files.isRegularFile(p)) {
            return p;
        }
        try {
            Path shipped = Path.of(SparkFiles.get(p.getFileName().toString()));
            if (Files.isRegularFile(shipped)) {
                return shipped;
            }
        } catch (RuntimeException e) {
            // no SparkContext here, or no files shipped: report the path as given
        }
        throw new RlxSparkException("ONNX model " + path + " is not a file on this machine (nor one shipped with --files)");
    }

    /** The model file's declared inputs and outputs, read on the driver. */
    OnnxModel read() {
        return OnnxModel.load(resolve());
    }

    /** A per-task runner. */
    interface Runner extends AutoCloseable {
        Map<String, Tensor> run(Map<String, Tensor> inputs);

        @Override
        void close();
    }

    ExecutorModels.LoadedModel<Runner> load() {
        OnnxModel m = read();
        CompileCache cache = new CompileCache(RlxTextModel.CACHE_PROGRAMS);
        SharedWeights weights = new SharedWeights("rlx-onnx " + path);
        return new ExecutorModels.LoadedModel<>() {
            @Override
            public Runner open(int threads) {
                Session s = new Session(Device.CPU, CompileOptions.defaults().withThreads(threads), cache);
                OnnxRunner r = new OnnxRunner(m, s, OnnxBinding.none(), weights.set());
                return new Runner() {
                    @Override
                    public Map<String, Tensor> run(Map<String, Tensor> inputs) {
                        return r.run(inputs);
                    }

                    @Override
                    public void close() {
                        r.close();
                        s.close();
                    }
                };
            }

            @Override
            public long compiles() {
                return cache.misses();
            }

            @Override
            public long weightBytes() {
                return weights.set().byteSize();
            }

            @Override
            public void close() {
                cache.clear();
                weights.close();
            }
        };
    }
}
