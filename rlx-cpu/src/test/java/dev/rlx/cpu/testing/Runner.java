package dev.rlx.cpu.testing;

import dev.rlx.testkit.reference.Ref;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Tensor;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.TensorView;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Compiles a graph on the CPU backend, feeds named inputs and params, and returns every output as double[]. */
public final class Runner {
    private Runner() {}

    /** Runs with the default thread count. */
    public static List<double[]> run(Graph g, Map<String, ?> data) {
        return run(g, data, 0);
    }

    /**
     * Values may be float[], double[], int[], long[], boolean[], {@link Tensor} (for C64 data) or {@link Ref}
     * (sent as float[] for float slots and long[] for integer slots); names are looked up among inputs, then
     * params. A C64 output comes back as interleaved (re, im) doubles.
     */
    public static List<double[]> run(Graph g, Map<String, ?> data, int threads) {
        try (Session s = new Session(Device.CPU, CompileOptions.defaults().withThreads(threads))) {
            return runIn(s, g, data);
        }
    }

    /** Compiles {@code g} with {@code s}, feeds the data, runs once and returns every output. */
    public static List<double[]> runIn(Session s, Graph g, Map<String, ?> data) {
        try (CompiledGraph c = s.compile(g)) {
            for (Map.Entry<String, ?> e : data.entrySet()) {
                boolean input = c.inputNames().contains(e.getKey());
                set(c, e.getKey(), e.getValue(), input);
            }
            c.run();
            List<double[]> out = new ArrayList<>();
            for (TensorView v : c.outputs()) {
                out.add(v.dtype().isComplex() ? complexValues(v) : realValues(v));
            }
            return out;
        }
    }

    private static double[] realValues(TensorView v) {
        double[] d = new double[(int) v.size()];
        v.copyTo(d);
        return d;
    }

    /** A C64 output as interleaved (re, im) doubles. */
    private static double[] complexValues(TensorView v) {
        java.nio.FloatBuffer b = v.toTensor().buffer().asFloatBuffer();
        double[] d = new double[b.remaining()];
        for (int i = 0; i < d.length; i++) {
            d[i] = b.get(i);
        }
        return d;
    }

    private static void set(CompiledGraph c, String name, Object v, boolean input) {
        if (v instanceof Ref r) {
            var shape = input ? c.inputShape(name) : c.paramShape(name);
            v = shape.dtype().isFloat() ? r.floats() : shape.dtype().isBool() ? toBool(r) : r.longs();
        }
        switch (v) {
            case float[] f -> { if (input) c.setInput(name, f); else c.setParam(name, f); }
            case double[] f -> { if (input) c.setInput(name, f); else c.setParam(name, f); }
            case int[] f -> { if (input) c.setInput(name, f); else c.setParam(name, f); }
            case long[] f -> { if (input) c.setInput(name, f); else c.setParam(name, f); }
            case boolean[] f -> { if (input) c.setInput(name, f); else c.setParam(name, f); }
            case Tensor t -> { if (input) c.setInput(name, t); else c.setParam(name, t); }
            default -> throw new IllegalArgumentException("unsupported test data " + v.getClass());
        }
    }

    private static boolean[] toBool(Ref r) {
        boolean[] b = new boolean[r.size()];
        for (int i = 0; i < b.length; i++) {
            b[i] = r.data()[i] != 0;
        }
        return b;
    }
}
