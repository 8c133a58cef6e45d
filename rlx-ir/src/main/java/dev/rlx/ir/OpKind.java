package dev.rlx.ir;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * One constant per {@link Op} record: what a backend declares it supports and what passes test membership
 * of. Properties are data (the sets below), not a class hierarchy.
 */
public enum OpKind {
    INPUT, PARAM, CONSTANT,
    UNARY, BINARY, COMPARE, WHERE, CAST,
    MATMUL, QUANT_MATMUL,
    REDUCE, ARG_REDUCE, SOFTMAX, LOG_SOFTMAX, CUMSUM, TOP_K,
    LAYER_NORM, RMS_NORM, GROUP_NORM,
    RESHAPE, TRANSPOSE, SLICE, CONCAT, EXPAND,
    GATHER, SCATTER_ADD,
    ATTENTION, PAGED_ATTENTION, ROPE,
    CONV, CONV_TRANSPOSE, POOL,
    FFT,
    IF, WHILE, SCAN,
    FUSED, FUSED_MATMUL, ADD_NORM,
    CUSTOM,
    RNG_NORMAL, RNG_UNIFORM;

    /** Nodes with no inputs that name or hold data: inputs, parameters, constants. */
    public static final Set<OpKind> SOURCES = EnumSet.of(INPUT, PARAM, CONSTANT);

    /** Computed independently per output element from broadcast operands: fusible into one pass. */
    public static final Set<OpKind> ELEMENTWISE = EnumSet.of(UNARY, BINARY, COMPARE, WHERE, CAST);

    /** Only move or reinterpret data. */
    public static final Set<OpKind> MOVEMENT = EnumSet.of(RESHAPE, TRANSPOSE, SLICE, CONCAT, EXPAND);

    /** Hold subgraphs and run them at execution time. */
    public static final Set<OpKind> CONTROL_FLOW = EnumSet.of(IF, WHILE, SCAN);

    /** Made by fusion passes from simpler ops, which a backend may lack. */
    public static final Set<OpKind> FUSION_PRODUCTS = EnumSet.of(FUSED, FUSED_MATMUL, ADD_NORM);

    /** Compositions of simpler ops, first-class for speed. */
    public static final Set<OpKind> COMPOSITE =
            EnumSet.of(SOFTMAX, LOG_SOFTMAX, LAYER_NORM, RMS_NORM, GROUP_NORM, ATTENTION, ROPE);

    /**
     * Not pure functions of their operands: each evaluation draws new values from a random stream. Passes must
     * not merge two such nodes (CSE), fold them into constants, duplicate or re-order them; dropping an unused
     * one is fine.
     */
    public static final Set<OpKind> IMPURE = EnumSet.of(RNG_NORMAL, RNG_UNIFORM);

    /** {@code snake_case} name used by the printer and in messages. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
