package dev.rlx.cli;

import dev.rlx.ir.Graph;
import dev.rlx.onnx.OnnxBinding;
import dev.rlx.onnx.OnnxModel;
import dev.rlx.onnx.OnnxValueInfo;

/** A graph of an ONNX model to choose a device with, before the real inputs are known. */
final class ModelGraphs {
    private ModelGraphs() {}

    /** {@code m} imported with every symbolic input dimension set to {@code size}. */
    static Graph withSymbolicDims(OnnxModel m, int size) {
        OnnxBinding b = OnnxBinding.none();
        for (OnnxValueInfo in : m.inputs()) {
            for (String d : in.dims()) {
                if (!d.matches("\\d+")) {
                    b = b.withDim(d, size);
                }
            }
        }
        return m.importGraph(b).graph();
    }
}
