package dev.rlx.llm.model;

import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.WeightSet;
import java.util.ArrayList;
import java.util.List;

/**
 * The decoder compiled for one token capacity (a power of two): its {@code layers} stage graphs, its heads (one
 * per sequence capacity met so far) and the host arrays that carry activations between them and the paged
 * attention, sized once so a step at this capacity allocates nothing.
 */
final class CompiledDecoder implements AutoCloseable {
    final int tokens;
    final CompiledGraph[] stages;
    final float[] x;
    final float[] cos;
    final float[] sin;
    final float[] q;
    final float[] k;
    final float[] v;
    final float[] att;
    private final List<Head> heads = new ArrayList<>();
    private final DecoderGraphs graphs;
    private final Session session;
    private final WeightSet weights;
    private final int vocab;

    /** The head compiled for {@code seqs} logits rows, with its inputs and output. */
    record Head(int seqs, CompiledGraph graph, int[] last, float[] logits) {}

    CompiledDecoder(int tokens, LlamaConfig c, DecoderGraphs graphs, Session session, WeightSet weights) {
        this.tokens = tokens;
        this.graphs = graphs;
        this.session = session;
        this.weights = weights;
        this.vocab = c.vocabSize();
        this.stages = new CompiledGraph[c.layers()];
        try {
            for (int l = 0; l < stages.length; l++) {
                stages[l] = session.compile(graphs.stage(l, tokens), weights);
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        x = new float[tokens * c.dim()];
        cos = new float[tokens * c.headDim() / 2];
        sin = new float[tokens * c.headDim() / 2];
        q = new float[tokens * c.qDim()];
        k = new float[tokens * c.kvDim()];
        v = new float[tokens * c.kvDim()];
        att = new float[tokens * c.qDim()];
    }

    /** The head for {@code seqs} rows (a power of two), compiled on first use. */
    Head head(int seqs) {
        for (int i = 0; i < heads.size(); i++) { // a few entries; no iterator: allocates nothing
            Head h = heads.get(i);
            if (h.seqs == seqs) {
                return h;
            }
        }
        Head h = new Head(seqs, session.compile(graphs.head(tokens, seqs), weights), new int[seqs],
                new float[seqs * vocab]);
        heads.add(h);
        return h;
    }

    @Override
    public void close() {
        for (CompiledGraph g : stages) {
            if (g != null) {
                g.close();
            }
        }
        for (Head h : heads) {
            h.graph.close();
        }
        heads.clear();
    }
}
