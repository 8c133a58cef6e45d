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
    MATMUL,
    REDUCE, ARG_REDUCE, SOFTMAX, LOG_SOFTMAX, CUMSUM, TOP_K,
    LAYER_NORM, RMS_NORM, GROUP_NORM,
    RESHAPE, TRANSPOSE, SLICE, CONCAT, EXPAND,
    GATHER, SCATTER_ADD,
    ATTENTION, ROPE,
    CONV, CONV_TRANSPOSE, POOL,
    FFT,
    IF, WHILE, SCAN,
    CUSTOM;

    /** Nodes with no inputs that name or hold data: inputs, parameters, constants. */
    public static final Set<OpKind> SOURCES = EnumSet.of(INPUT, PARAM, CONSTANT);

    /** Computed independently per output element from broadcast operands: fusible into one pass. */
    public static final Set<OpKind> ELEMENTWISE = EnumSet.of(UNARY, BINARY, COMPARE, WHERE, CAST);

    /** Only move or reinterpret data. */
    public static final Set<OpKind> MOVEMENT = EnumSet.of(RESHAPE, TRANSPOSE, SLICE, CONCAT, EXPAND);

    /** Hold subgraphs and run them at execution time. */
    public static final Set<OpKind> CONTROL_FLOW = EnumSet.of(IF, WHILE, SCAN);

    /** Compositions of simpler ops, first-class for speed. */
    public static final Set<OpKind> COMPOSITE =
            EnumSet.of(SOFTMAX, LOG_SOFTMAX, LAYER_NORM, RMS_NORM, GROUP_NORM, ATTENTION, ROPE);

    /** {@code snake_case} name used by the printer and in messages. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
