package dev.rlx.onnx;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** The converter for each supported op type of the default ONNX domain. */
final class OpTable {
    private OpTable() {}

    private static final Map<String, Converter> TABLE;

    static {
        Map<String, Converter> t = new HashMap<>();
        ElementwiseOps.register(t);
        ShapeOps.register(t);
        GeneratorOps.register(t);
        ReduceOps.register(t);
        NnOps.register(t);
        IndexOps.register(t);
        LossOps.register(t);
        ResizeOps.register(t);
        QuantOps.register(t);
        RecurrentOps.register(t);
        ControlFlowOps.register(t);
        EinsumOp.register(t);
        TABLE = Collections.unmodifiableMap(t);
    }

    static Converter get(String opType) {
        return TABLE.get(opType);
    }

    /** Supported op types, sorted. */
    static Set<String> supported() {
        return new TreeSet<>(TABLE.keySet());
    }
}
