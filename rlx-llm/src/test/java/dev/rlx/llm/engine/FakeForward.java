package dev.rlx.llm.engine;

import dev.rlx.ir.RlxException;
import dev.rlx.llm.kv.KvCacheConfig;
import dev.rlx.llm.kv.KvStorage;
import dev.rlx.llm.kv.PagedKvCache;
import dev.rlx.llm.kv.ScheduledBatch;
import dev.rlx.llm.model.BatchForward;
import java.util.function.ToIntFunction;

/**
 * A model whose logits are a pure function of the sequence's history, read back from the KV cache it writes
 * (each token's id is stored as its one-value key in layer 0), so wrong positions, lost blocks or a broken
 * recompute after preemption change the output. Logits are pseudo-random per (history hash, token), with an
 * optional favourite token (from a script the test gives) lifted far above the rest.
 */
final class FakeForward implements BatchForward {
    private final int vocab;
    private final int context;
    private final PagedKvCache cache;
    private final ToIntFunction<int[]> favourite; // history -> token to lift, or -1
    private final java.util.concurrent.Semaphore gate; // null: run freely; else one permit per step
    final java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
    private float[] k = new float[64];
    private float[] v = new float[64];
    volatile int failOnToken = -1; // forward throws when a batch feeds this token
    volatile boolean closed;
    long tokensComputed;

    FakeForward(int vocab, int context, int blocks, int tokensPerBlock, ToIntFunction<int[]> favourite) {
        this.vocab = vocab;
        this.context = context;
        this.cache = new PagedKvCache(KvCacheConfig.of(1, 1, 1, tokensPerBlock, blocks, KvStorage.F32));
        this.favourite = favourite;
        this.gate = null;
    }

    /** A fake whose steps wait for permits the test hands out. */
    FakeForward(int vocab, int context, int blocks, int tokensPerBlock, ToIntFunction<int[]> favourite,
                java.util.concurrent.Semaphore gate) {
        this.vocab = vocab;
        this.context = context;
        this.cache = new PagedKvCache(KvCacheConfig.of(1, 1, 1, tokensPerBlock, blocks, KvStorage.F32));
        this.favourite = favourite;
        this.gate = gate;
    }

    @Override
    public int vocabSize() {
        return vocab;
    }

    @Override
    public int contextLength() {
        return context;
    }

    @Override
    public PagedKvCache cache() {
        return cache;
    }

    @Override
    public void forward(ScheduledBatch batch, float[] logits) {
        entered.countDown();
        if (gate != null) {
            gate.acquireUninterruptibly();
        }
        for (ScheduledBatch.Entry e : batch.entries()) {
            for (int t : e.tokens()) {
                if (t == failOnToken) {
                    throw new RlxException("[FakeForward] planned failure on token " + t);
                }
            }
        }
        for (int i = 0; i < batch.entries().size(); i++) {
            ScheduledBatch.Entry e = batch.entries().get(i);
            int n = e.count();
            grow(n);
            for (int t = 0; t < n; t++) {
                k[t] = e.tokens()[t];
                v[t] = 0;
            }
            cache.write(e.sequence(), 0, e.start(), n, k, 0, v, 0);
            tokensComputed += n;
            int len = e.sequence().length();
            grow(len);
            cache.read(e.sequence(), 0, 0, len, k, 0, v, 0);
            int[] history = new int[len];
            for (int p = 0; p < len; p++) {
                history[p] = (int) k[p];
            }
            logitsOf(history, logits, i * vocab);
        }
    }

    /** Writes the logits after {@code history} at {@code out[off, off + vocab)}: the model's whole definition. */
    void logitsOf(int[] history, float[] out, int off) {
        long h = 1469598103934665603L;
        for (int t : history) {
            h = (h ^ t) * 1099511628211L;
        }
        for (int t = 0; t < vocab; t++) {
            long x = (h ^ (t * 0x9E3779B97F4A7C15L)) * 0xBF58476D1CE4E5B9L;
            x ^= x >>> 31;
            out[off + t] = (Math.floorMod(x, 8001) - 4000) / 1000f; // [-4, 4]
        }
        int fav = favourite == null ? -1 : favourite.applyAsInt(history);
        if (fav >= 0) {
            out[off + fav] = 30f;
        }
    }

    private void grow(int n) {
        if (k.length < n) {
            k = new float[2 * n];
            v = new float[2 * n];
        }
    }

    @Override
    public void close() {
        closed = true;
        cache.close();
    }
}
