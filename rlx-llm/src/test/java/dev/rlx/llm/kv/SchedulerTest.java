package dev.rlx.llm.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SchedulerTest {
    private static PagedKvCache cache(int tpb, int blocks) {
        return new PagedKvCache(KvCacheConfig.of(1, 1, 32, tpb, blocks, KvStorage.F16));
    }

    /** Runs steps until idle (at most {@code maxSteps}); returns finished requests by id. */
    private static Map<Long, Finished> drain(Scheduler s, FakeModel m, int maxSteps, PagedKvCache c) {
        Map<Long, Finished> done = new HashMap<>();
        for (int i = 0; i < maxSteps && !s.idle(); i++) {
            ScheduledBatch b = s.schedule();
            for (Finished f : s.complete(b, m.run(b))) {
                done.put(f.requestId(), f);
            }
            c.audit();
        }
        assertTrue(s.idle(), "still " + s.waitingCount() + " waiting, " + s.runningCount() + " running");
        return done;
    }

    @Test
    void schedule_decodesFirstThenPrefillsChunkedToBudget() {
        // Spec 18.1: budget 8 with three decodes and two 3-token prompts waiting -> 3 decodes, the first prompt
        // whole, 2 tokens of the second; its last token follows in the next step at position 2.
        try (PagedKvCache c = cache(4, 64)) {
            FakeModel m = new FakeModel(c, true);
            Scheduler s = new Scheduler(c, new SchedulerConfig(8, 16, 0));
            for (int id = 1; id <= 3; id++) {
                s.submit(m.request(id, 1, 10, 10));
            }
            ScheduledBatch first = s.schedule(); // three 1-token prompts
            assertEquals(3, first.entries().size());
            s.complete(first, m.run(first));
            s.submit(m.request(4, 3, 10, 10));
            s.submit(m.request(5, 3, 10, 10));
            ScheduledBatch b = s.schedule();
            assertEquals(8, b.tokenCount());
            List<ScheduledBatch.Entry> e = b.entries();
            assertEquals(5, e.size());
            for (int i = 0; i < 3; i++) {
                assertFalse(e.get(i).prefill());
                assertEquals(1, e.get(i).count());
                assertEquals(1, e.get(i).start());
                assertTrue(e.get(i).samples());
            }
            assertEquals(4, e.get(3).requestId());
            assertTrue(e.get(3).prefill() && e.get(3).count() == 3 && e.get(3).samples());
            assertEquals(5, e.get(4).requestId());
            assertEquals(2, e.get(4).count());
            assertFalse(e.get(4).samples()); // a partial prompt produces no token
            assertArrayEquals(new int[] {1, 1, 1, 3, 2}, b.queryLengths());
            s.complete(b, m.run(b));
            ScheduledBatch next = s.schedule();
            ScheduledBatch.Entry rest = next.entries().get(next.entries().size() - 1);
            assertEquals(5, rest.requestId());
            assertEquals(2, rest.start());
            assertEquals(1, rest.count());
            assertTrue(rest.prefill() && rest.samples());
            s.complete(next, m.run(next));
        }
    }

    @Test
    void schedule_maxSequencesPerStep_isRespected() {
        try (PagedKvCache c = cache(4, 64)) {
            FakeModel m = new FakeModel(c, false);
            Scheduler s = new Scheduler(c, new SchedulerConfig(100, 2, 0));
            for (int id = 1; id <= 5; id++) {
                s.submit(m.request(id, 2, 3, 3));
            }
            ScheduledBatch b = s.schedule();
            assertEquals(2, b.entries().size());
            assertEquals(3, s.waitingCount());
            s.complete(b, m.run(b));
            assertEquals(5, drain(s, m, 100, c).size());
        }
    }

    @Test
    void schedule_outOfBlocks_preemptsNewestAndRecomputesIt() {
        // 6 blocks of 4 tokens. Two requests with 6-token prompts and 8 outputs each need 4 blocks apiece at
        // the end (6 + 8 - 1 = 13 tokens): they cannot both finish without one being preempted.
        try (PagedKvCache c = cache(4, 6)) {
            FakeModel m = new FakeModel(c, true);
            Scheduler s = new Scheduler(c, new SchedulerConfig(64, 8, 0));
            s.submit(m.request(1, 6, 8, 8));
            s.submit(m.request(2, 6, 8, 8));
            List<Long> preempted = new ArrayList<>();
            Map<Long, Finished> done = new HashMap<>();
            for (int i = 0; i < 100 && !s.idle(); i++) {
                ScheduledBatch b = s.schedule();
                preempted.addAll(b.preempted());
                for (Finished f : s.complete(b, m.run(b))) {
                    done.put(f.requestId(), f);
                }
                c.audit();
            }
            assertEquals(List.of(2L), preempted.subList(0, 1)); // the newer one goes first
            assertEquals(0, done.get(1L).preemptions());
            assertTrue(done.get(2L).preemptions() >= 1);
            // Same outputs as if nothing had been preempted: 7 tokens then EOS.
            for (long id = 1; id <= 2; id++) {
                int[] out = done.get(id).output();
                assertEquals(8, out.length);
                assertEquals(FakeModel.EOS, out[7]);
                for (int j = 0; j < 7; j++) {
                    assertEquals(m.next(id, 6 + j - 1), out[j]);
                }
                assertEquals(Finished.Reason.EOS, done.get(id).reason());
            }
            assertTrue(s.preemptions() >= 1);
            assertEquals(0, c.usedBlocks());
        }
    }

    @Test
    void drain_requestsThatEachNeedTheWholeCache_allFinish() {
        // 4 blocks of 4 = 16 slots; every request needs 16 (prompt 9 + 8 new - 1). Only one fits at a time.
        try (PagedKvCache c = cache(4, 4)) {
            FakeModel m = new FakeModel(c, true);
            Scheduler s = new Scheduler(c, new SchedulerConfig(5, 4, 0));
            for (int id = 1; id <= 4; id++) {
                s.submit(m.request(id, 9, 8, 8));
            }
            Map<Long, Finished> done = drain(s, m, 500, c);
            assertEquals(4, done.size());
            for (Finished f : done.values()) {
                assertEquals(8, f.output().length);
            }
        }
    }

    @Test
    void submit_requestLargerThanCache_throwsRequestTooLarge() {
        try (PagedKvCache c = cache(4, 4)) {
            Scheduler s = new Scheduler(c, new SchedulerConfig(8, 4, 0));
            KvCacheException e = assertThrows(KvCacheException.class,
                    () -> s.submit(Request.of(7, new int[10], 8))); // 17 cached tokens > 16 slots
            assertEquals(KvCacheException.Reason.REQUEST_TOO_LARGE, e.reason());
            assertTrue(e.getMessage().contains("request 7 needs up to 5 blocks"), e.getMessage());
            s.submit(Request.of(8, new int[9], 8)); // exactly 16: fits
            assertEquals(1, s.waitingCount());
            assertEquals(KvCacheException.Reason.BAD_ARGUMENT,
                    assertThrows(KvCacheException.class, () -> s.submit(Request.of(8, new int[1], 1))).reason());
        }
    }

    @Test
    void complete_maxNewTokens_finishesWithLengthAndFreesBlocks() {
        try (PagedKvCache c = cache(4, 16)) {
            FakeModel m = new FakeModel(c, false);
            Scheduler s = new Scheduler(c, new SchedulerConfig(64, 8, 0));
            s.submit(m.request(1, 5, 100, 3)); // the model would go on; maxNewTokens stops it at 3
            Map<Long, Finished> done = drain(s, m, 10, c);
            assertEquals(Finished.Reason.LENGTH, done.get(1L).reason());
            assertEquals(3, done.get(1L).output().length);
            assertEquals(0, c.usedBlocks());
            assertEquals(0, c.sequenceCount());
        }
    }

    @Test
    void schedule_headroom_holdsBackAdmissionOnlyWhileSomethingRuns() {
        try (PagedKvCache c = cache(4, 8)) {
            FakeModel m = new FakeModel(c, false);
            Scheduler s = new Scheduler(c, new SchedulerConfig(64, 8, 5));
            s.submit(m.request(1, 16, 4, 4)); // 4 blocks; admitted although that leaves less than 5 free
            s.submit(m.request(2, 4, 4, 4));
            ScheduledBatch b = s.schedule();
            assertEquals(1, b.entries().size()); // 4 free - 5 headroom: request 2 waits
            assertEquals(16, b.tokenCount());
            assertEquals(1, s.waitingCount());
            s.complete(b, m.run(b));
            assertEquals(2, drain(s, m, 50, c).size());
        }
    }

    @Test
    void schedule_twiceWithoutComplete_throwsBadState() {
        try (PagedKvCache c = cache(4, 8)) {
            Scheduler s = new Scheduler(c, new SchedulerConfig(8, 4, 0));
            s.submit(Request.of(1, new int[] {5, 6}, 2));
            ScheduledBatch b = s.schedule();
            assertEquals(KvCacheException.Reason.BAD_STATE, assertThrows(KvCacheException.class, s::schedule).reason());
            assertEquals(KvCacheException.Reason.BAD_STATE,
                    assertThrows(KvCacheException.class, () -> s.abort(1)).reason());
            assertEquals(KvCacheException.Reason.BAD_ARGUMENT,
                    assertThrows(KvCacheException.class, () -> s.complete(b, new int[0])).reason());
            s.complete(b, new int[] {9});
            assertEquals(KvCacheException.Reason.BAD_STATE,
                    assertThrows(KvCacheException.class, () -> s.complete(b, new int[] {9})).reason());
        }
    }

    @Test
    void abort_waitingAndRunning_freesBlocks() {
        try (PagedKvCache c = cache(4, 8)) {
            Scheduler s = new Scheduler(c, new SchedulerConfig(8, 1, 0));
            s.submit(Request.of(1, new int[] {5, 6, 7}, 4));
            s.submit(Request.of(2, new int[] {5}, 4));
            ScheduledBatch b = s.schedule();
            s.complete(b, new int[] {42});
            Finished running = s.abort(1);
            assertEquals(Finished.Reason.ABORTED, running.reason());
            assertArrayEquals(new int[] {42}, running.output());
            assertEquals(0, c.usedBlocks());
            assertEquals(Finished.Reason.ABORTED, s.abort(2).reason());
            assertTrue(s.idle());
            assertEquals(KvCacheException.Reason.BAD_ARGUMENT,
                    assertThrows(KvCacheException.class, () -> s.abort(2)).reason());
            c.audit();
        }
    }

    @Test
    void schedule_nothingQueued_returnsEmptyBatch() {
        try (PagedKvCache c = cache(4, 8)) {
            Scheduler s = new Scheduler(c, new SchedulerConfig(8, 1, 0));
            ScheduledBatch b = s.schedule();
            assertTrue(b.isEmpty());
            assertTrue(s.complete(b, new int[0]).isEmpty());
        }
    }
}
