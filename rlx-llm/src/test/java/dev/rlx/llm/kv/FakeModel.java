package dev.rlx.llm.kv;

import java.util.HashMap;
import java.util.Map;

/**
 * Stands in for a transformer when driving a {@link Scheduler}: for every batch entry it writes K/V rows that
 * are a pure function of (request, position) into every layer, optionally checks that the sequence's
 * earlier history reads back as that function (through preemption, recompute and block reuse), and "samples"
 * a next token that depends only on (request, position), ending with {@link #EOS} after a planned number of
 * tokens. So a request's output is the same however often it was preempted.
 */
final class FakeModel {
    static final int EOS = 0;

    private final PagedKvCache cache;
    private final int row; // floats per token: kvHeads * headDim
    private final boolean verifyHistory;
    private final Map<Long, Integer> outputLength = new HashMap<>(); // tokens until EOS, per request
    private final Map<Long, Integer> promptLength = new HashMap<>();
    private float[] k = new float[0];
    private float[] v = new float[0];
    long tokensComputed;

    FakeModel(PagedKvCache cache, boolean verifyHistory) {
        this.cache = cache;
        this.row = cache.config().kvHeads() * cache.config().headDim();
        this.verifyHistory = verifyHistory;
    }

    /** A request whose model output ends with EOS as token number {@code outputTokens}. */
    Request request(long id, int promptTokens, int outputTokens, int maxNewTokens) {
        int[] prompt = new int[promptTokens];
        for (int i = 0; i < promptTokens; i++) {
            prompt[i] = 1 + Math.floorMod(id * 31 + i * 7, 997);
        }
        outputLength.put(id, outputTokens);
        promptLength.put(id, promptTokens);
        return new Request(id, prompt, maxNewTokens, EOS);
    }

    /** The token the model produces after position {@code pos} of request {@code id}. */
    int next(long id, int pos) {
        int generatedIndex = pos + 1 - promptLength.get(id); // 0 for the first generated token
        return generatedIndex + 1 >= outputLength.get(id) ? EOS : 1 + Math.floorMod(id * 131 + pos * 17, 997);
    }

    /** Writes the batch's K/V, checks history if asked, and returns the sampled tokens. */
    int[] run(ScheduledBatch batch) {
        int[] next = new int[batch.entries().size()];
        for (int i = 0; i < next.length; i++) {
            ScheduledBatch.Entry e = batch.entries().get(i);
            int n = e.count();
            if (k.length < n * row) {
                k = new float[n * row];
                v = new float[n * row];
            }
            for (int t = 0; t < n; t++) {
                fill(e.requestId(), e.start() + t, k, v, t * row);
            }
            for (int l = 0; l < cache.config().layers(); l++) {
                cache.write(e.sequence(), l, e.start(), n, k, 0, v, 0);
            }
            if (verifyHistory) {
                verify(e);
            }
            tokensComputed += n;
            next[i] = next(e.requestId(), e.start() + n - 1);
        }
        return next;
    }

    private void verify(ScheduledBatch.Entry e) {
        int len = e.sequence().length();
        float[] kr = new float[len * row];
        float[] vr = new float[len * row];
        float[] ke = new float[len * row];
        float[] ve = new float[len * row];
        for (int p = 0; p < len; p++) {
            fill(e.requestId(), p, ke, ve, p * row);
        }
        for (int l = 0; l < cache.config().layers(); l++) {
            cache.read(e.sequence(), l, 0, len, kr, 0, vr, 0);
            KvStorage storage = cache.config().storage(l);
            if (!java.util.Arrays.equals(kr, PagedKvCacheTest.stored(storage, ke))
                    || !java.util.Arrays.equals(vr, PagedKvCacheTest.stored(storage, ve))) {
                throw new AssertionError("request " + e.requestId() + " layer " + l + ": history of " + len
                        + " tokens does not read back as written");
            }
        }
    }

    /** K/V of one token at {@code pos} of request {@code id} (the token id is itself a function of both). */
    private void fill(long id, int pos, float[] kOut, float[] vOut, int off) {
        for (int j = 0; j < row; j++) {
            long h = id * 1_000_003L + pos * 8191L + j * 131L;
            kOut[off + j] = Math.floorMod(h, 2001) / 1000f - 1;
            vOut[off + j] = Math.floorMod(h * 7, 2001) / 1000f - 1;
        }
    }
}
