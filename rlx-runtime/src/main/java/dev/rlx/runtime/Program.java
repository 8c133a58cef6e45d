package dev.rlx.runtime;

import dev.rlx.ir.Graph;
import dev.rlx.opt.MemoryPlan;
import dev.rlx.opt.MemoryPlanner;

/**
 * What compiling a graph decides before any kernel is built: the optimised graph and its memory plan (bodies
 * of control-flow nodes included). Immutable, so one program serves every compiled instance made from it (see
 * {@link CompileCache}) and every {@link CompiledGraph#copy()}.
 *
 * @param inPlace whether the plan lets element-wise ops overwrite a dying operand
 */
record Program(Graph graph, MemoryPlan plan, boolean inPlace) {
    static Program plan(Graph optimised, int alignment, boolean inPlace) {
        return new Program(optimised, MemoryPlanner.plan(optimised, alignment, inPlace), inPlace);
    }
}
