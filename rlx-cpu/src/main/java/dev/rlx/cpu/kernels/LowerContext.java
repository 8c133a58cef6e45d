package dev.rlx.cpu.kernels;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.Value;
import dev.rlx.runtime.OpRegistry;
import java.lang.foreign.MemorySegment;

/**
 * What a kernel factory may use while building a kernel: the arena slices of values, the worker pool,
 * compile-time scratch memory, the custom-op registry and a way to compile subgraphs.
 */
public interface LowerContext {
    /** The arena slice and shape of {@code v}. */
    Buf buf(Value v);

    /** Operand {@code i} of {@code n}. */
    default Buf in(Node n, int i) {
        return buf(n.inputs().get(i));
    }

    /** Output {@code i} of {@code n}. */
    default Buf out(Node n, int i) {
        return buf(n.outputs().get(i));
    }

    Parallel parallel();

    /**
     * Zeroed scratch memory owned by the executable, for kernels that need workspace (sized at build time,
     * never per run). Aligned to 64 bytes.
     */
    MemorySegment scratch(long bytes);

    OpRegistry ops();

    /** The random-number settings the graph is compiled with. */
    dev.rlx.runtime.RngOptions rng();

    /** Registers a kernel that {@code CompiledGraph.setRng} must re-seed. */
    void reseedable(Reseedable kernel);

    /** Compiles a subgraph (an If branch, a loop body) into its own executable on this backend. */
    SubProgram compile(Graph subgraph);

    /** A compiled subgraph: write its inputs, run, read its outputs, all in host memory. */
    interface SubProgram {
        /** The host slot of subgraph input {@code i} (in declaration order). */
        MemorySegment input(int i);

        /** The host slot of subgraph output {@code i}. */
        MemorySegment output(int i);

        void run();
    }
}
