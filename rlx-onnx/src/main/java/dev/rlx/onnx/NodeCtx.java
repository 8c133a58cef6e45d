package dev.rlx.onnx;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import java.util.List;
import java.util.Locale;

/**
 * What a {@link Converter} sees of the node it lowers: its inputs as IR values or as values known at import
 * time, its attributes with ONNX defaults, the opset in force, and where to put its outputs. Errors it
 * makes name the node.
 */
final class NodeCtx {
    final OnnxProto.Node node;
    final Scope scope;
    private final Importer importer;
    private final int opset;
    private final Value[] outputs;

    NodeCtx(OnnxProto.Node node, Scope scope, Importer importer, int opset) {
        this.node = node;
        this.scope = scope;
        this.importer = importer;
        this.opset = opset;
        this.outputs = new Value[node.outputs().size()];
    }

    /** The default-domain opset version the model imports. */
    int opset() {
        return opset;
    }

    Graph g() {
        return scope.graph;
    }

    Importer importer() {
        return importer;
    }

    String describe() {
        return node.describe();
    }

    // ---------------------------------------------------------------- inputs

    /** Inputs listed, including empty names for skipped optional ones. */
    int inputCount() {
        return node.inputs().size();
    }

    /** Whether optional input {@code i} is given. */
    boolean has(int i) {
        return i < node.inputs().size() && !node.inputs().get(i).isEmpty();
    }

    /** Input {@code i} as an IR value. */
    Value in(int i) {
        if (!has(i)) {
            throw fail("input %d is required but not given", i);
        }
        return importer.value(scope, node.inputs().get(i), this);
    }

    /** All given inputs as IR values. */
    List<Value> ins() {
        return java.util.stream.IntStream.range(0, inputCount()).filter(this::has).mapToObj(this::in).toList();
    }

    DType dtype(int i) {
        return in(i).shape().dtype();
    }

    /**
     * The value of input {@code i}, which must be known at import time: an initializer, a constant, a value
     * computed from those, or a graph input bound by value.
     */
    Tensor constant(int i) {
        if (!has(i)) {
            throw fail("input %d is required but not given", i);
        }
        return importer.staticValue(scope, node.inputs().get(i), this);
    }

    /** Input {@code i}'s known integer values. */
    long[] longs(int i) {
        return Tensors.longs(constant(i));
    }

    /** The one value of input {@code i} (a scalar or one-element tensor known at import time), as an integer. */
    long scalarLong(int i) {
        return Tensors.longs(single(i))[0];
    }

    /** The one value of input {@code i} (a scalar or one-element tensor known at import time). */
    double scalarDouble(int i) {
        return single(i).getDouble(0);
    }

    private Tensor single(int i) {
        Tensor t = constant(i);
        if (t.shape().elementCount() != 1) {
            throw fail("input %d ('%s') must hold one value but is %s", i, node.inputs().get(i), t.shape());
        }
        return t;
    }

    // ---------------------------------------------------------------- attributes

    boolean hasAttr(String name) {
        return node.attributes().containsKey(name);
    }

    private OnnxProto.Attribute attr(String name, OnnxProto.AttrType type) {
        OnnxProto.Attribute a = node.attributes().get(name);
        if (a == null) {
            return null;
        }
        if (!a.refName().isEmpty()) {
            throw new OnnxUnsupportedException("attribute references", describe() + ": attribute '" + name
                    + "' refers to a function attribute, which only functions may do");
        }
        if (a.type() != type) {
            throw fail("attribute '%s' should be %s but is %s", name, type, a.type());
        }
        return a;
    }

    long attrInt(String name, long def) {
        OnnxProto.Attribute a = attr(name, OnnxProto.AttrType.INT);
        return a == null ? def : a.i();
    }

    /** An INT attribute that must fit an int, e.g. an axis. */
    int attrIntExact(String name, long def) {
        long v = attrInt(name, def);
        if (v != (int) v) {
            throw fail("attribute '%s' = %d is out of range", name, v);
        }
        return (int) v;
    }

    float attrFloat(String name, float def) {
        OnnxProto.Attribute a = attr(name, OnnxProto.AttrType.FLOAT);
        return a == null ? def : a.f();
    }

    String attrString(String name, String def) {
        OnnxProto.Attribute a = attr(name, OnnxProto.AttrType.STRING);
        return a == null ? def : new String(a.s() == null ? new byte[0] : a.s(), java.nio.charset.StandardCharsets.UTF_8);
    }

    /** INTS attribute, or {@code def} (may be null) when absent. */
    long[] attrInts(String name, long[] def) {
        OnnxProto.Attribute a = attr(name, OnnxProto.AttrType.INTS);
        return a == null ? def : a.ints().clone();
    }

    float[] attrFloats(String name, float[] def) {
        OnnxProto.Attribute a = attr(name, OnnxProto.AttrType.FLOATS);
        return a == null ? def : a.floats().clone();
    }

    List<String> attrStrings(String name) {
        OnnxProto.Attribute a = attr(name, OnnxProto.AttrType.STRINGS);
        return a == null ? null : a.strings().stream()
                .map(b -> new String(b, java.nio.charset.StandardCharsets.UTF_8)).toList();
    }

    Tensor attrTensor(String name) {
        OnnxProto.Attribute a = attr(name, OnnxProto.AttrType.TENSOR);
        if (a != null && a.t() == null) {
            throw fail("attribute '%s' is declared a TENSOR but holds no tensor (field t)", name);
        }
        return a == null ? null : importer.decode(a.t());
    }

    OnnxProto.Graph attrGraph(String name) {
        OnnxProto.Attribute a = attr(name, OnnxProto.AttrType.GRAPH);
        if (a == null) {
            throw fail("graph attribute '%s' is required", name);
        }
        if (a.g() == null) {
            throw fail("attribute '%s' is declared a GRAPH but holds no graph (field g)", name);
        }
        return a.g();
    }

    // ---------------------------------------------------------------- outputs

    int outputCount() {
        return outputs.length;
    }

    /** Whether the node asks for output {@code i} (listed with a non-empty name). */
    boolean wantsOutput(int i) {
        return i < node.outputs().size() && !node.outputs().get(i).isEmpty();
    }

    /** Sets the node's outputs in order; values past the node's listed outputs are ignored. */
    void out(Value... values) {
        for (int i = 0; i < values.length && i < outputs.length; i++) {
            outputs[i] = values[i];
        }
    }

    void out(int i, Value v) {
        if (i < outputs.length) {
            outputs[i] = v;
        }
    }

    Value output(int i) {
        return outputs[i];
    }

    // ---------------------------------------------------------------- errors

    OnnxImportException fail(String format, Object... args) {
        return new OnnxImportException(describe() + ": " + String.format(Locale.ROOT, format, args));
    }

    OnnxUnsupportedException unsupported(String feature, String format, Object... args) {
        return new OnnxUnsupportedException(feature, describe() + ": " + String.format(Locale.ROOT, format, args));
    }
}
