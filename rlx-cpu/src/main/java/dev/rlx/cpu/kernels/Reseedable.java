package dev.rlx.cpu.kernels;

import dev.rlx.runtime.RngOptions;

/** A kernel with random state that {@code CompiledGraph.setRng} re-seeds (never called during a run). */
public interface Reseedable {
    void setRng(RngOptions rng);
}
