package dev.rlx.onnx;

/** Lowers one ONNX node into IR ops on the graph being built. */
@FunctionalInterface
interface Converter {
    void convert(NodeCtx c);
}
