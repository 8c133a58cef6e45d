package dev.rlx.runtime.devices;

import dev.rlx.ir.Graph;
import dev.rlx.ir.Node;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;

/**
 * The estimated time of one run of a graph under a {@link BackendCostModel}, in ns (the seed's estimate plus
 * the copies in and out): round trip + per node (matmul and attention by FLOPs over the GEMM rate, everything
 * else by output bytes over memory bandwidth, each plus a dispatch) + inputs and outputs over the host bandwidth
 * when the device does not share host memory.
 */
public final class CostEstimator {
    private CostEstimator() {}

    public static double estimateNs(Graph g, BackendCostModel m) {
        return m.roundtripOverheadNs() + computeNs(g, m) + ioNs(g, m);
    }

    /** Kernel time of every node, without the round trip or the copies. */
    public static double computeNs(Graph g, BackendCostModel m) {
        double total = 0;
        for (Node n : g.nodes()) {
            total += nodeNs(n, m);
        }
        return total;
    }

    /** Time of node {@code n} on {@code m}'s device, in ns (0 for inputs, params and constants). */
    public static double nodeNs(Node n, BackendCostModel m) {
        if (OpKind.SOURCES.contains(n.kind())) {
            return 0;
        }
        Shape out = n.outputs().get(0).shape();
        long outElems = Math.max(1, out.elementCount());
        if ((n.kind() == OpKind.MATMUL || n.kind() == OpKind.FUSED_MATMUL) && out.rank() >= 1) {
            long cols = Math.max(1, out.dim(out.rank() - 1));
            long rows = Math.max(1, outElems / cols);
            long inner = Math.max(1, n.inputs().get(0).shape().elementCount() / rows);
            return 2.0 * rows * inner * cols / m.sgemmGflops(rows, inner, cols) + m.dispatchOverheadNs();
        }
        if (n.kind() == OpKind.ATTENTION && n.inputs().get(0).rank() >= 2) {
            Shape q = n.inputs().get(0).shape();
            long seq = Math.max(1, q.dim(q.rank() - 2));
            long headDim = Math.max(1, q.dim(q.rank() - 1));
            long batchHeads = Math.max(1, q.elementCount() / (seq * headDim));
            return 4.0 * batchHeads * seq * seq * headDim / m.sgemmGflops(seq, headDim, seq) + m.dispatchOverheadNs();
        }
        long bytes = 0;
        for (Value v : n.outputs()) {
            bytes += v.shape().byteSize();
        }
        return bytes / m.memoryBwGbps() + m.dispatchOverheadNs();
    }

    /** Copying the inputs in and the outputs out, in ns; 0 on unified memory. */
    public static double ioNs(Graph g, BackendCostModel m) {
        if (m.unifiedMemory()) {
            return 0;
        }
        return transferNs(ioBytes(g), m);
    }

    /** Bytes of the graph's inputs plus outputs: what a run moves between host and device. */
    public static long ioBytes(Graph g) {
        long bytes = 0;
        for (Value v : g.inputs()) {
            bytes += v.shape().byteSize();
        }
        for (Value v : g.outputs()) {
            bytes += v.shape().byteSize();
        }
        return bytes;
    }

    /** Moving {@code bytes} between host and {@code m}'s device, in ns. */
    public static double transferNs(long bytes, BackendCostModel m) {
        return m.unifiedMemory() ? 0 : bytes / m.hostReadbackBwGbps();
    }
}
