package dev.rlx.llm.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

/**
 * Random workloads against the paged cache and the scheduler, checking after every operation: no block
 * leaked or freed twice (the allocator's free stack is exactly the blocks with count 0), every reference count
 * equals the number of block-table entries naming the block, and every live sequence reads back exactly what
 * was written to it (copy-on-write isolates forks). jqwik shrinks a failing operation list to a short one.
 */
class KvCachePropertiesTest {
    private static final int KV_HEADS = 2;
    private static final int HEAD_DIM = 32;
    private static final int ROW = KV_HEADS * HEAD_DIM;

    /** One step of a cache workload; {@code pick} selects a live sequence, {@code n} a token count. */
    record Op(Kind kind, int pick, int n) {
        enum Kind { NEW, APPEND, FORK, FREE, PREEMPT, USE_FREED }
    }

    @Provide
    Arbitrary<List<Op>> workloads() {
        Arbitrary<Op> op = Combinators.combine(
                Arbitraries.frequency(Tuple.of(2, Op.Kind.NEW), Tuple.of(5, Op.Kind.APPEND), Tuple.of(2, Op.Kind.FORK),
                        Tuple.of(1, Op.Kind.FREE), Tuple.of(1, Op.Kind.PREEMPT), Tuple.of(1, Op.Kind.USE_FREED)),
                Arbitraries.integers().between(0, 1000), Arbitraries.integers().between(1, 40)).as(Op::new);
        return op.list().ofMinSize(5).ofMaxSize(60);
    }

    @Property(tries = 150)
    void cache_randomWorkload_keepsInvariants(@ForAll("workloads") List<Op> ops, @ForAll KvStorage storage,
                                              @ForAll @IntRange(min = 1, max = 9) int tokensPerBlock,
                                              @ForAll boolean spill) throws IOException {
        Path file = spill ? Files.createTempFile("rlx-kv", ".spill") : null;
        KvCacheConfig cfg = KvCacheConfig.of(1, KV_HEADS, HEAD_DIM, tokensPerBlock, 16, storage);
        if (spill) { // RAM for 4 blocks, the rest in the file: blocks move as the workload grows
            cfg = cfg.withSpill(new KvCacheConfig.Spill(file, 4 * cfg.blockBytesAllLayers(),
                    KvCacheConfig.Spill.Mode.CREATE));
        }
        try (PagedKvCache c = new PagedKvCache(cfg)) {
            Map<Long, KvSequence> seqs = new LinkedHashMap<>();
            Map<Long, List<float[]>> expected = new HashMap<>(); // per sequence: stored K row per token
            List<KvSequence> freed = new ArrayList<>();
            long nextId = 2;
            for (long id = 0; id < nextId; id++) { // two sequences to start with
                seqs.put(id, c.newSequence(id));
                expected.put(id, new ArrayList<>());
            }
            boolean refused = false;
            boolean shared = false;
            for (Op op : ops) {
                List<Long> ids = new ArrayList<>(seqs.keySet());
                Long id = ids.isEmpty() ? null : ids.get(op.pick() % ids.size());
                switch (op.kind()) {
                    case NEW -> {
                        seqs.put(nextId, c.newSequence(nextId));
                        expected.put(nextId, new ArrayList<>());
                        nextId++;
                    }
                    case APPEND -> {
                        if (id != null) {
                            refused |= !append(c, seqs.get(id), expected.get(id), op.n(), storage);
                        }
                    }
                    case FORK -> {
                        if (id != null) {
                            seqs.put(nextId, c.fork(seqs.get(id), nextId));
                            expected.put(nextId, new ArrayList<>(expected.get(id)));
                            nextId++;
                        }
                    }
                    case FREE -> {
                        if (id != null) {
                            KvSequence s = seqs.remove(id);
                            c.free(s);
                            expected.remove(id);
                            freed.add(s);
                        }
                    }
                    case PREEMPT -> { // free and recompute, as the scheduler does, when blocks allow
                        if (id != null) {
                            KvSequence s = seqs.get(id);
                            List<float[]> rows = expected.get(id);
                            c.free(s);
                            if (c.freeBlocks() * tokensPerBlock >= rows.size()) {
                                KvSequence again = c.newSequence(id);
                                c.append(again, rows.size());
                                for (int p = 0; p < rows.size(); p++) {
                                    c.write(again, 0, p, 1, rows.get(p), 0, rows.get(p), 0);
                                }
                                seqs.put(id, again);
                            } else {
                                seqs.remove(id);
                                expected.remove(id);
                            }
                        }
                    }
                    case USE_FREED -> {
                        if (!freed.isEmpty()) {
                            KvSequence s = freed.get(op.pick() % freed.size());
                            int before = c.freeBlocks();
                            assertThrows(KvCacheException.class, () -> c.free(s)); // no double free
                            assertThrows(KvCacheException.class, () -> c.append(s, 1));
                            assertEquals(before, c.freeBlocks());
                        }
                    }
                }
                c.audit();
                shared |= c.memoryStats().sharedBlocks() > 0;
                for (Map.Entry<Long, KvSequence> e : seqs.entrySet()) {
                    assertReadsBack(c, e.getValue(), expected.get(e.getKey()));
                }
            }
            Statistics.label("append refused").collect(refused);
            Statistics.label("blocks shared").collect(shared);
            for (KvSequence s : seqs.values()) {
                c.free(s);
            }
            assertEquals(0, c.usedBlocks()); // nothing leaked
            c.audit();
        } finally {
            if (file != null) {
                Files.deleteIfExists(file);
            }
        }
    }

    /**
     * Appends {@code n} tokens with rows that depend on (sequence, position), or checks the refusal; returns
     * whether it appended.
     */
    private static boolean append(PagedKvCache c, KvSequence s, List<float[]> rows, int n, KvStorage storage) {
        if (!c.canAppend(s, n)) {
            int length = s.length();
            int free = c.freeBlocks();
            KvCacheException e = assertThrows(KvCacheException.class, () -> c.append(s, n));
            assertEquals(KvCacheException.Reason.OUT_OF_BLOCKS, e.reason());
            assertEquals(length, s.length());
            assertEquals(free, c.freeBlocks());
            return false;
        }
        int start = c.append(s, n);
        Random r = new Random(s.id() * 7919 + start);
        float[] k = new float[n * ROW];
        for (int i = 0; i < k.length; i++) {
            k[i] = (float) r.nextGaussian();
        }
        c.write(s, 0, start, n, k, 0, k, 0);
        float[] stored = PagedKvCacheTest.stored(storage, k);
        for (int t = 0; t < n; t++) {
            rows.add(java.util.Arrays.copyOfRange(stored, t * ROW, (t + 1) * ROW));
        }
        return true;
    }

    private static void assertReadsBack(PagedKvCache c, KvSequence s, List<float[]> rows) {
        assertEquals(rows.size(), s.length(), "length of sequence " + s.id());
        float[] k = new float[rows.size() * ROW];
        float[] v = new float[rows.size() * ROW];
        c.read(s, 0, 0, rows.size(), k, 0, v, 0);
        for (int p = 0; p < rows.size(); p++) {
            float[] got = java.util.Arrays.copyOfRange(k, p * ROW, (p + 1) * ROW);
            assertArrayEquals(rows.get(p), got, "sequence " + s.id() + " position " + p);
            assertArrayEquals(rows.get(p), java.util.Arrays.copyOfRange(v, p * ROW, (p + 1) * ROW));
        }
    }

    /* ---------------- scheduler ---------------- */

    @Property(tries = 100)
    void scheduler_randomWorkload_finishesEverythingWithoutLeaks(
            @ForAll long seed, @ForAll @IntRange(min = 1, max = 8) int tokensPerBlock,
            @ForAll @IntRange(min = 4, max = 30) int numBlocks, @ForAll @IntRange(min = 1, max = 64) int budget,
            @ForAll @IntRange(min = 1, max = 6) int maxSeqs, @ForAll @IntRange(min = 0, max = 3) int headroom,
            @ForAll @IntRange(min = 2, max = 12) int requests) {
        Random r = new Random(seed);
        try (PagedKvCache c = new PagedKvCache(KvCacheConfig.of(2, 1, 32, tokensPerBlock, numBlocks,
                KvStorage.Q8_0).withLayerStorage(List.of(KvStorage.Q8_0, KvStorage.F32)))) {
            FakeModel m = new FakeModel(c, true);
            Scheduler s = new Scheduler(c, new SchedulerConfig(budget, maxSeqs, headroom));
            int capacity = numBlocks * tokensPerBlock;
            List<Request> arrivals = new ArrayList<>();
            for (int id = 0; id < requests; id++) {
                // Outputs as long as prompts: their growth is what admission cannot foresee, so it preempts.
                int prompt = 1 + r.nextInt(Math.min(30, capacity));
                int maxNew = 1 + r.nextInt(Math.max(1, Math.min(40, capacity - prompt + 1)));
                // EOS near the limit: sometimes just before it, sometimes the limit comes first.
                arrivals.add(m.request(id, prompt, Math.max(1, maxNew - 2 + r.nextInt(4)), maxNew));
            }
            Map<Long, Finished> done = new HashMap<>();
            int arrived = 0;
            long work = 0;
            for (Request q : arrivals) {
                work += q.maxCachedTokens() + 1;
            }
            // Bound on steps: every step computes >= 1 token, and recompute cannot repeat forever (the oldest
            // request is never preempted), so this generous bound only trips on a livelock or deadlock.
            long maxSteps = 50 * work + 100;
            for (long step = 0; step < maxSteps && (arrived < arrivals.size() || !s.idle()); step++) {
                if (arrived < arrivals.size() && (r.nextInt(3) == 0 || s.idle())) {
                    s.submit(arrivals.get(arrived++));
                }
                ScheduledBatch b = s.schedule();
                assertTrue(b.tokenCount() <= budget, "budget");
                assertTrue(b.entries().size() <= maxSeqs, "sequence limit");
                Set<Long> inBatch = new HashSet<>();
                for (ScheduledBatch.Entry e : b.entries()) {
                    assertTrue(inBatch.add(e.requestId()), "request " + e.requestId() + " twice in one step");
                    assertEquals(e.start() + e.count(), e.sequence().length());
                    assertTrue(e.prefill() || e.count() == 1);
                }
                if (!s.idle()) {
                    assertTrue(!b.isEmpty() || !b.preempted().isEmpty(), "a step with work queued did nothing");
                }
                for (Finished f : s.complete(b, m.run(b))) {
                    assertTrue(done.put(f.requestId(), f) == null, "finished twice");
                }
                c.audit();
                assertEquals(s.runningCount(), c.sequenceCount());
                assertEquals(arrived, done.size() + s.runningCount() + s.waitingCount(), "requests lost");
            }
            assertEquals(arrivals.size(), done.size(), "deadlock or livelock: not everything finished");
            Statistics.label("preempted").collect(s.preemptions() > 0);
            assertEquals(0, c.usedBlocks());
            for (Request q : arrivals) {
                int[] out = done.get(q.id()).output();
                for (int j = 0; j < out.length; j++) { // outputs do not depend on preemption
                    assertEquals(m.next(q.id(), q.prompt().length - 1 + j), out[j]);
                }
            }
        }
    }
}
