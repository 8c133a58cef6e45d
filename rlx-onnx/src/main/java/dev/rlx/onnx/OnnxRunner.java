package dev.rlx.onnx;

import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.WeightSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs an ONNX model on whatever input shapes it is given: each new binding of shapes (and of the values of
 * inputs that decide shapes) is imported and compiled once, through the session's compile cache, and kept. All
 * of them read one copy of the model's weights: a {@link WeightSet} the runner uploads once and shares, so a
 * model compiled at three sequence lengths holds its weights once, not three times.
 *
 * <pre>{@code
 * try (OnnxRunner r = new OnnxRunner(OnnxModel.load(path), session)) {
 *     Map<String, Tensor> out = r.run(Map.of("x", Tensor.of(data, 1, 3, 224, 224)));
 * }
 * }</pre>
 *
 * <p>Not thread-safe (it holds compiled graphs, which are used by one thread at a time). Several runners, one per
 * thread, can share one copy of the weights: give each the same set ({@link #OnnxRunner(OnnxModel, Session,
 * OnnxBinding, WeightSet)}); their compiles then upload each weight once, one compile at a time.
 */
public final class OnnxRunner implements AutoCloseable {
    private final OnnxModel model;
    private final Session session;
    private final OnnxBinding base;
    private final List<Variant> variants = new ArrayList<>();
    private final WeightSet weights;
    private final boolean ownsWeights;

    /**
     * One compiled shape binding. The imported graph itself is not kept: its weights are in the shared set, and
     * holding its tensors would keep a heap copy of the weights per shape.
     */
    private record Variant(Map<String, Shape> shapes, List<String> outputNames, Map<String, Tensor> frozenInputs,
                           CompiledGraph compiled) {}

    public OnnxRunner(OnnxModel model, Session session) {
        this(model, session, OnnxBinding.none());
    }

    /** A runner whose imports start from {@code base} (e.g. explicit symbolic dims). */
    public OnnxRunner(OnnxModel model, Session session, OnnxBinding base) {
        this(model, session, base, session.newWeightSet("onnx model weights"), true);
    }

    /**
     * A runner whose graphs read {@code shared}, a set on the session's device that other runners of the same
     * model (on other threads, other sessions) read too; closing the runner leaves the set open. The set must
     * hold only this model's weights: a weight is uploaded only if the set does not hold it yet.
     */
    public OnnxRunner(OnnxModel model, Session session, OnnxBinding base, WeightSet shared) {
        this(model, session, base, java.util.Objects.requireNonNull(shared, "shared"), false);
    }

    private OnnxRunner(OnnxModel model, Session session, OnnxBinding base, WeightSet weights, boolean owns) {
        this.model = model;
        this.session = session;
        this.base = base;
        this.weights = weights;
        this.ownsWeights = owns;
    }

    /**
     * Runs the model on {@code inputs} (every model input, by name) and returns its outputs by name, in the
     * model's order.
     */
    public Map<String, Tensor> run(Map<String, Tensor> inputs) {
        Variant v = variant(inputs);
        CompiledGraph c = v.compiled();
        for (String name : c.inputNames()) {
            Tensor t = inputs.get(name);
            if (t == null) {
                throw new OnnxImportException("input '" + name + "' is not given; the model's inputs are "
                        + model.inputs().stream().map(OnnxValueInfo::name).toList());
            }
            c.setInput(name, t);
        }
        c.run();
        Map<String, Tensor> out = new LinkedHashMap<>();
        for (int i = 0; i < c.outputCount(); i++) {
            out.put(v.outputNames().get(i), c.output(i).toTensor());
        }
        return out;
    }

    /** How many shape bindings have been compiled so far. */
    public int compiledVariants() {
        return variants.size();
    }

    /** The weights every compiled shape reads, held once. */
    public WeightSet weights() {
        return weights;
    }

    /**
     * What the runner holds in memory: per compiled shape its input shapes and arena bytes, then the shared
     * weights and their packed copies, once.
     */
    public String memoryReport() {
        StringBuilder sb = new StringBuilder();
        long arenas = 0;
        for (Variant v : variants) {
            CompiledGraph c = v.compiled();
            arenas += c.deviceBytes();
            sb.append(String.format(Locale.ROOT, "%s: arena %,d bytes, own device memory %,d bytes, reads %,d bytes of"
                    + " weights%n", v.shapes().values(), c.arenaBytes(), c.deviceBytes(), c.weightBytes()));
        }
        long copies = weights.copyBytes();
        sb.append(String.format(Locale.ROOT, "%s%nweights packed for the kernels: %,d bytes, once%ntotal resident: %,d"
                + " bytes (%d shape%s + weights once + packed once)%n", weights, copies,
                arenas + weights.byteSize() + copies, variants.size(), variants.size() == 1 ? "" : "s"));
        return sb.toString();
    }

    private Variant variant(Map<String, Tensor> inputs) {
        Map<String, Shape> shapes = new LinkedHashMap<>();
        inputs.forEach((k, t) -> shapes.put(k, t.shape()));
        for (Variant v : variants) {
            if (v.shapes().equals(shapes) && frozenMatch(v.frozenInputs(), inputs)) {
                return v;
            }
        }
        OnnxBinding b = new OnnxBinding(shapes, base.dims(), inputs);
        OnnxGraph g = model.importGraph(b);
        CompiledGraph compiled;
        // one compile at a time per set: another runner's compile must not see a weight declared but not yet
        // uploaded, and would otherwise upload it a second time
        synchronized (weights) {
            compiled = g.compile(session, session.defaults(), weights);
        }
        Variant v = new Variant(shapes, g.outputNames(), g.frozenInputs(), compiled);
        variants.add(v);
        return v;
    }

    private static boolean frozenMatch(Map<String, Tensor> frozen, Map<String, Tensor> inputs) {
        for (var e : frozen.entrySet()) {
            if (!e.getValue().equals(inputs.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        for (Variant v : variants) {
            v.compiled().close();
        }
        variants.clear();
        if (ownsWeights) {
            weights.close();
        }
    }
}
