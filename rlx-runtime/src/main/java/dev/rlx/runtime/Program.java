package dev.rlx.runtime;

import dev.rlx.ir.Graph;
import dev.rlx.opt.MemoryPlan;

/**
 * What compiling a graph decides before any kernel is built: the optimised graph and its memory plan.
 * Immutable, so one program serves every compiled instance made from it (see {@link CompileCache}).
 */
record Program(Graph graph, MemoryPlan plan) {}
