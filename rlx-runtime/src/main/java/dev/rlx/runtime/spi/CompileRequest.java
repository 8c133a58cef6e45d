package dev.rlx.runtime.spi;

import dev.rlx.ir.Graph;
import dev.rlx.opt.MemoryPlan;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.OpRegistry;

/**
 * What a backend compiles: the optimised graph, its memory plan, the options, and the registry to find
 * custom-op kernels in.
 */
public record CompileRequest(Graph graph, MemoryPlan plan, CompileOptions options, OpRegistry ops) {}
