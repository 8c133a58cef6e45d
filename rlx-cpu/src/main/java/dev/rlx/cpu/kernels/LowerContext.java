package dev.rlx.cpu.kernels;

import dev.rlx.ir.Node;
import dev.rlx.ir.Value;
import dev.rlx.runtime.OpRegistry;
import dev.rlx.runtime.spi.WeightCopies;
import dev.rlx.runtime.spi.WriteCount;
import java.lang.foreign.MemorySegment;
import java.util.Map;

/**
 * What a kernel factory may use while building a kernel: the memory of values, the worker pool, compile-time
 * scratch memory, the custom-op registry and the already planned bodies of control-flow nodes.
 */
public interface LowerContext {
    /** The bytes and shape of {@code v} (arena, constant pool or bound param buffer). */
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

    /**
     * Workspace valid only while this node's kernel runs: the kernels of one executable run one at a time, so
     * they share these bytes, and what they hold when the kernel starts is whatever another kernel left. For
     * buffers a kernel fully writes before it reads (GEMM packing, im2col columns, split-K partials, score
     * blocks); state kept across runs belongs in {@link #scratch}. 64-byte aligned; requests made while building
     * one kernel never overlap each other.
     */
    MemorySegment workspace(long bytes);

    OpRegistry ops();

    /** The random-number settings the graph is compiled with. */
    dev.rlx.runtime.RngOptions rng();

    /** Registers a kernel that {@code CompiledGraph.setRng} must re-seed. */
    void reseedable(Reseedable kernel);

    /**
     * Body {@code index} of control-flow node {@code n} (If: then, else; While: cond, body; Scan: body), built on
     * this backend in the memory its plan gave it.
     */
    SubProgram body(Node n, int index);

    /**
     * The copies of {@code v} in kernels' own layouts (a pre-packed matmul operand), when {@code v} changes only
     * through the runtime's setters: a param's are shared with every graph that reads the weight, a constant's
     * belong to this graph ({@link WriteCount#NEVER}). Null when {@code v} may change at any time (an activation,
     * an input, memory bound by reference): the kernel then works from {@code v} itself.
     */
    default WeightCopies weightCopies(Value v) {
        return null;
    }

    /** This context with {@code replaced} values read from other memory (everything else as here). */
    default LowerContext replacing(Map<Value, Buf> replaced) {
        LowerContext outer = this;
        return new LowerContext() {
            @Override
            public Buf buf(Value v) {
                Buf b = replaced.get(v);
                return b != null ? b : outer.buf(v);
            }

            @Override
            public Parallel parallel() {
                return outer.parallel();
            }

            @Override
            public MemorySegment scratch(long bytes) {
                return outer.scratch(bytes);
            }

            @Override
            public MemorySegment workspace(long bytes) {
                return outer.workspace(bytes);
            }

            @Override
            public OpRegistry ops() {
                return outer.ops();
            }

            @Override
            public dev.rlx.runtime.RngOptions rng() {
                return outer.rng();
            }

            @Override
            public void reseedable(Reseedable kernel) {
                outer.reseedable(kernel);
            }

            @Override
            public SubProgram body(Node n, int index) {
                return outer.body(n, index);
            }

            @Override
            public WeightCopies weightCopies(Value v) {
                return replaced.containsKey(v) ? null : outer.weightCopies(v);
            }
        };
    }

    /** A compiled subgraph: write its inputs, run, read its outputs, all in host memory. */
    interface SubProgram {
        /** The host slot of subgraph input {@code i} (in declaration order). */
        MemorySegment input(int i);

        /** The host slot of subgraph output {@code i}. */
        MemorySegment output(int i);

        void run();
    }
}
