package dev.rlx.onnx;

import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What import needs to know beyond the model: the shapes of its inputs (from which symbolic dims such as
 * {@code batch} are bound), sizes for symbolic dims given explicitly, and the values of inputs that decide
 * shapes (a Reshape's target, a Range's limit). Values are only used where the model needs them at import
 * time; such inputs are then fixed (see {@link OnnxGraph#frozenInputs()}).
 *
 * @param shapes input name to shape
 * @param dims symbolic dim name to size
 * @param values input name to value
 */
public record OnnxBinding(Map<String, Shape> shapes, Map<String, Integer> dims, Map<String, Tensor> values) {
    public OnnxBinding {
        shapes = Map.copyOf(shapes);
        dims = Map.copyOf(dims);
        values = Map.copyOf(values);
    }

    /** Nothing bound: every input must have a fully static declared shape. */
    public static OnnxBinding none() {
        return new OnnxBinding(Map.of(), Map.of(), Map.of());
    }

    /** Shapes and values of the given input tensors. */
    public static OnnxBinding of(Map<String, Tensor> inputs) {
        Map<String, Shape> s = new LinkedHashMap<>();
        inputs.forEach((k, v) -> s.put(k, v.shape()));
        return new OnnxBinding(s, Map.of(), inputs);
    }

    public OnnxBinding withDim(String symbol, int size) {
        Map<String, Integer> d = new LinkedHashMap<>(dims);
        d.put(symbol, size);
        return new OnnxBinding(shapes, d, values);
    }

    public OnnxBinding withShape(String input, Shape shape) {
        Map<String, Shape> s = new LinkedHashMap<>(shapes);
        s.put(input, shape);
        return new OnnxBinding(s, dims, values);
    }

    public OnnxBinding withValue(String input, Tensor value) {
        Map<String, Tensor> v = new LinkedHashMap<>(values);
        v.put(input, value);
        return withShape(input, value.shape()).withValues(v);
    }

    private OnnxBinding withValues(Map<String, Tensor> v) {
        return new OnnxBinding(shapes, dims, v);
    }
}
