package dev.rlx.onnx;

import java.util.ArrayList;
import java.util.List;

/**
 * A model input or output as declared: its name, element type (ONNX name, e.g. {@code FLOAT}) or value kind
 * for non-tensors ({@code sequence}, {@code map}, {@code optional}), and dims: a number, a symbol such as
 * {@code batch}, or {@code ?} for unknown. {@code dims} is empty when no shape is declared.
 */
public record OnnxValueInfo(String name, String elementType, List<String> dims) {
    public OnnxValueInfo {
        dims = List.copyOf(dims);
    }

    static OnnxValueInfo of(OnnxProto.ValueInfo v) {
        OnnxProto.TypeDef t = v.type();
        if (t.kind() != OnnxProto.ValueKind.TENSOR) {
            return new OnnxValueInfo(v.name(), t.kind().name().toLowerCase(java.util.Locale.ROOT), List.of());
        }
        List<String> d = new ArrayList<>();
        for (int i = 0; i < t.dims().length; i++) {
            d.add(t.dimParams()[i] != null ? t.dimParams()[i] : t.dims()[i] < 0 ? "?" : Long.toString(t.dims()[i]));
        }
        return new OnnxValueInfo(v.name(), OnnxTypes.name(t.elemType()), d);
    }
}
