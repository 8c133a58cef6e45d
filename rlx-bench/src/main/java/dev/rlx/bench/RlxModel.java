package dev.rlx.bench;

import dev.rlx.ir.Tensor;
import dev.rlx.onnx.OnnxBinding;
import dev.rlx.onnx.OnnxGraph;
import dev.rlx.onnx.OnnxModel;
import dev.rlx.opt.PrecisionPolicy;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A model file imported and compiled by RLX for its inputs' shapes and values, inputs set once: the RLX side of
 * the corpus. Records how long each step of the first run took.
 */
final class RlxModel implements Runnable, AutoCloseable {
    private final Session session;
    private final CompiledGraph compiled;
    /** Milliseconds: file read and parsed, imported, compiled, and the first run with its outputs read. */
    final double loadMs;
    final double importMs;
    final double compileMs;
    final double firstRunMs;

    RlxModel(Path file, Map<String, Tensor> inputs, int threads, PrecisionPolicy precision) {
        this(() -> OnnxModel.load(file), inputs, threads, precision);
    }

    /** As {@link #RlxModel(Path, Map, int, PrecisionPolicy)}, the model read by {@code load} (timed as the load). */
    RlxModel(Supplier<OnnxModel> load, Map<String, Tensor> inputs, int threads, PrecisionPolicy precision) {
        long t0 = System.nanoTime();
        OnnxModel m = load.get();
        long t1 = System.nanoTime();
        OnnxGraph g = m.importGraph(OnnxBinding.of(inputs));
        long t2 = System.nanoTime();
        session = new Session(Device.CPU, CompileOptions.defaults().withThreads(threads).withPrecision(precision));
        compiled = g.compile(session);
        for (String name : compiled.inputNames()) {
            compiled.setInput(name, inputs.get(name));
        }
        long t3 = System.nanoTime();
        outputs();
        long t4 = System.nanoTime();
        loadMs = (t1 - t0) / 1e6;
        importMs = (t2 - t1) / 1e6;
        compileMs = (t3 - t2) / 1e6;
        firstRunMs = (t4 - t3) / 1e6;
    }

    /** One run; every output as floats, in the model's output order. */
    List<float[]> outputs() {
        compiled.run();
        List<float[]> out = new ArrayList<>();
        for (int i = 0; i < compiled.outputCount(); i++) {
            out.add(compiled.output(i).toFloatArray());
        }
        return out;
    }

    /** The graph as compiled (after the optimisation passes). */
    dev.rlx.ir.Graph graph() {
        return compiled.graph();
    }

    int kernels() {
        return compiled.kernelCount();
    }

    @Override
    public void run() {
        compiled.run();
    }

    @Override
    public void close() {
        compiled.close();
        session.close();
    }
}
