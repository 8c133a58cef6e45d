package dev.rlx.onnx;

import dev.rlx.ir.RlxException;
import dev.rlx.ir.limits.Limits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A parsed ONNX model, ready to import for given input shapes.
 *
 * <pre>{@code
 * OnnxModel m = OnnxModel.load(Path.of("model.onnx"));
 * OnnxGraph ig = m.importGraph(OnnxBinding.none().withDim("batch", 8));
 * try (Session s = new Session(Device.CPU); CompiledGraph c = ig.compile(s)) { ... }
 * }</pre>
 *
 * <p>Opsets 1 to 17 of the default domain are read with their per-version rules. Loading checks the wire
 * format; importing checks everything else. Every problem is an {@link OnnxFormatException} (malformed
 * data), {@link OnnxUnsupportedException} (valid but not supported) or {@link OnnxImportException}, each
 * naming the node or tensor. Immutable and thread-safe.
 */
public final class OnnxModel {
    /** Largest model file read into memory; larger models keep their weights as external data. */
    public static final long MAX_FILE_BYTES = Integer.MAX_VALUE - 8;

    private final OnnxProto.Model model;
    private final Path dir;

    private OnnxModel(OnnxProto.Model model, Path dir) {
        this.model = model;
        this.dir = dir;
    }

    /** Reads {@code file}; external data is resolved relative to its folder. */
    public static OnnxModel load(Path file) {
        try {
            if (!Files.isRegularFile(file)) { // a FIFO or device would block or never end
                throw new OnnxFormatException(file.toString(), "not a regular file");
            }
            long size = Files.size(file);
            if (size > MAX_FILE_BYTES) {
                throw new OnnxFormatException(file.toString(), "the file has " + size
                        + " bytes; models above 2 GiB must keep their weights as external data");
            }
            Path parent = file.toAbsolutePath().getParent();
            return parse(Files.readAllBytes(file), parent);
        } catch (IOException e) {
            throw new OnnxFormatException(file.toString(), "cannot read the file: " + e.getMessage(), e);
        }
    }

    /** Parses model bytes; {@code dir} (may be null, refusing external data) is where external data lives. */
    public static OnnxModel parse(byte[] bytes, Path dir) {
        try {
            return new OnnxModel(OnnxProto.parseModel(bytes), dir);
        } catch (RlxException e) {
            throw e;
        } catch (RuntimeException e) { // a reader bug must still surface as a format error, not a crash
            throw new OnnxFormatException("model", "cannot parse (" + e + ")", e);
        }
    }

    public long irVersion() {
        return model.irVersion();
    }

    /** Imported opsets: domain ({@code ""} for the default ONNX domain) to version. */
    public Map<String, Long> opsets() {
        return model.opsets();
    }

    public String producer() {
        return model.producer();
    }

    /** The graph inputs that are not initializers: what a caller feeds. */
    public List<OnnxValueInfo> inputs() {
        Set<String> inits = new java.util.HashSet<>();
        model.graph().initializers().forEach(t -> inits.add(t.name()));
        List<OnnxValueInfo> out = new ArrayList<>();
        for (OnnxProto.ValueInfo v : model.graph().inputs()) {
            if (!inits.contains(v.name())) {
                out.add(OnnxValueInfo.of(v));
            }
        }
        return out;
    }

    public List<OnnxValueInfo> outputs() {
        return model.graph().outputs().stream().map(OnnxValueInfo::of).toList();
    }

    /**
     * The op types the model uses, subgraphs included, as {@code OpType} for the default domain and
     * {@code domain:OpType} otherwise.
     */
    public Set<String> opTypes() {
        Set<String> out = new java.util.TreeSet<>();
        collectOps(model.graph(), out);
        return out;
    }

    private static void collectOps(OnnxProto.Graph g, Set<String> out) {
        for (OnnxProto.Node n : g.nodes()) {
            out.add(n.domain().isEmpty() ? n.opType() : n.domain() + ":" + n.opType());
            for (OnnxProto.Attribute a : n.attributes().values()) {
                if (a.g() != null) {
                    collectOps(a.g(), out);
                }
                a.graphs().forEach(sg -> collectOps(sg, out));
            }
        }
    }

    /** Op types of the default domain that import supports. */
    public static Set<String> supportedOps() {
        return OpTable.supported();
    }

    /**
     * Imports the model for {@code binding}.
     *
     * @throws OnnxImportException (or its subtype {@link OnnxUnsupportedException}) naming the node
     * @throws OnnxFormatException when a tensor in the model is malformed
     */
    public OnnxGraph importGraph(OnnxBinding binding) {
        return importGraph(binding, Limits.defaults());
    }

    /**
     * Imports the model for {@code binding} within {@code limits}: each input, initializer and value the import
     * makes or computes is bounded by {@link Limits.Kind#TENSOR_BYTES}, the initializers together by
     * {@link Limits.Kind#WEIGHT_BYTES}, and the nodes of all graphs after loop unrolling by
     * {@link Limits.Kind#GRAPH_NODES}, each checked before the thing is allocated or built.
     *
     * @throws dev.rlx.ir.limits.LimitExceededException naming the limit and the size asked
     */
    public OnnxGraph importGraph(OnnxBinding binding, Limits limits) {
        try {
            return new Importer(model, dir, binding, limits).run();
        } catch (RlxException e) {
            throw e;
        } catch (StackOverflowError e) {
            throw new OnnxImportException("the model nests too deeply to import", null);
        } catch (RuntimeException e) {
            throw new OnnxImportException("cannot import (" + e + ")", e);
        }
    }
}
