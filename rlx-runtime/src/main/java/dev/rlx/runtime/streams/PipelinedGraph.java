package dev.rlx.runtime.streams;

import dev.rlx.runtime.BindingException;
import dev.rlx.runtime.CompiledGraph;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Runs a {@link CompiledGraph} on a worker thread so the caller prepares the next inputs while the graph computes:
 * {@link #commitNoWait} snapshots the inputs and queues a run, {@link #syncPending} waits for the queued runs and
 * returns each run's outputs (snapshotted when that run finished, so a later run never overwrites an earlier one's),
 * {@link #runPipelined} does both for a list, {@link #runAsync} returns a future. Runs happen one at a time, in
 * order. While runs are pending, leave the compiled graph alone (it is the worker's); use one pipeline per thread.
 */
public final class PipelinedGraph implements AutoCloseable {
    private final CompiledGraph graph;
    private final AsyncCommandStream stream;
    private final List<CompletableFuture<List<float[]>>> pending = new ArrayList<>();
    // Read once here: the caller checks inputs against these while the worker runs the graph, never the graph itself.
    private final String name;
    private final Map<String, dev.rlx.ir.Shape> inputShapes = new java.util.LinkedHashMap<>();

    public PipelinedGraph(CompiledGraph graph) {
        this.graph = Objects.requireNonNull(graph, "graph");
        this.name = graph.graph().name();
        for (String n : graph.inputNames()) {
            inputShapes.put(n, graph.inputShape(n));
        }
        this.stream = new AsyncCommandStream("rlx-pipeline-" + name);
    }

    /** The graph the pipeline runs (touch it only when nothing is pending). */
    public CompiledGraph graph() {
        return graph;
    }

    /**
     * Checks {@code inputs} (names and lengths, on the caller's thread), copies them, and queues a run with them.
     *
     * @throws BindingException naming the input when a name or length is wrong; nothing is queued
     */
    public void commitNoWait(Map<String, float[]> inputs) {
        pending.add(runAsync(inputs));
    }

    /** Every output of every run committed since the last sync, in commit order. */
    public List<List<float[]>> syncPending() {
        List<List<float[]>> out = new ArrayList<>(pending.size());
        RuntimeException first = null;
        for (CompletableFuture<List<float[]>> f : pending) {
            try {
                out.add(f.get());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StreamException("interrupted while waiting for pipelined runs", e);
            } catch (ExecutionException e) {
                if (first == null) {
                    first = unwrap(e.getCause());
                }
            }
        }
        pending.clear();
        if (first != null) {
            throw first;
        }
        return out;
    }

    /** Runs the graph on each input set, pipelined; returns each run's outputs in order. */
    public List<List<float[]>> runPipelined(List<Map<String, float[]>> inputSets) {
        for (Map<String, float[]> in : inputSets) {
            commitNoWait(in);
        }
        return syncPending();
    }

    /**
     * Queues one run on a copy of {@code inputs}; the future completes with fresh arrays of its outputs (or with
     * the run's {@link dev.rlx.ir.RlxException}).
     */
    public CompletableFuture<List<float[]>> runAsync(Map<String, float[]> inputs) {
        Map<String, float[]> snapshot = snapshot(inputs);
        return CompletableFuture.supplyAsync(() -> graph.run(snapshot), stream.worker());
    }

    private Map<String, float[]> snapshot(Map<String, float[]> inputs) {
        java.util.LinkedHashMap<String, float[]> copy = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, float[]> e : inputs.entrySet()) {
            dev.rlx.ir.Shape shape = inputShapes.get(e.getKey());
            if (shape == null) {
                throw new BindingException("graph @" + name + " has no input '" + e.getKey() + "'; its inputs are "
                        + inputShapes.keySet());
            }
            long want = shape.elementCount();
            if (e.getValue().length != want) {
                throw new BindingException("input '" + e.getKey() + "' " + shape + " takes " + want + " values but "
                        + e.getValue().length + " were given");
            }
            copy.put(e.getKey(), e.getValue().clone());
        }
        return copy;
    }

    private static RuntimeException unwrap(Throwable t) {
        Throwable c = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
        return c instanceof RuntimeException r && c instanceof dev.rlx.ir.RlxException ? r
                : new StreamException("pipelined run failed: " + c, c);
    }

    /** Waits for pending runs (their results are dropped) and stops the worker; the graph stays open. */
    @Override
    public void close() {
        try {
            for (CompletableFuture<List<float[]>> f : pending) {
                f.handle((v, e) -> null).join();
            }
            pending.clear();
        } finally {
            stream.close();
        }
    }
}
