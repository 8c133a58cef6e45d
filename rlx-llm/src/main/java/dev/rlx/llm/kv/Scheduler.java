package dev.rlx.llm.kv;

import dev.rlx.llm.kv.KvCacheException.Reason;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Continuous batching over a {@link PagedKvCache}: requests wait in a FIFO queue, are admitted while blocks
 * last, and every {@link #schedule() step} runs one token for each decoding sequence plus prefill chunks,
 * under a token budget; finished sequences free their blocks at once, and when the pool runs dry the newest
 * running sequence is preempted (its blocks freed, its prompt and generated tokens queued again to be
 * recomputed).
 *
 * <p>A step, in order:
 * <ol>
 *   <li><b>Plan</b> (decode first): each running sequence with one pending token gets it, oldest first, while
 *       the token budget and sequence limit last; the remaining budget goes to running prefills, oldest first,
 *       as chunks of their pending tokens.</li>
 *   <li><b>Allocate</b>, oldest first: a sequence whose tokens need more blocks than are free preempts the
 *       newest running sequence, repeatedly, possibly itself (then it simply waits).</li>
 *   <li><b>Admit</b> (only in a step without preemption): the front waiting request starts with a chunk of
 *       its tokens, as large as the budget allows, when the free blocks cover all its known tokens on top of
 *       the rest of the running prompts, plus the configured headroom (skipped while nothing runs); FIFO, so a
 *       large request is never overtaken. Reserving whole prompts avoids admitting work that preempts itself;
 *       only the unknown output lengths are left to preemption.</li>
 * </ol>
 *
 * <p><b>No deadlock.</b> {@link #submit} rejects a request whose prompt and output could not fit in the whole
 * pool. Blocks are handed out oldest first and taken back newest first, so the oldest running request is never
 * preempted by another and always gets its blocks (it fits alone). It is always scheduled: decodes go oldest
 * first, and a prefill is only starved by decodes, which end within their output limit while nothing new is
 * admitted (admission uses budget left after running prefills). With nothing running the front request is
 * admitted without headroom. So the oldest request finishes in a bounded number of steps, then the next, and
 * every request finishes.
 *
 * <p>The scheduler assumes it owns the cache's blocks. Each step allocates a few small objects (the batch),
 * nothing per token. Not thread-safe.
 */
public final class Scheduler {
    private final PagedKvCache cache;
    private final SchedulerConfig config;
    private final int tpb;
    private final ArrayDeque<State> waiting = new ArrayDeque<>();
    private final List<State> running = new ArrayList<>(); // admission order, oldest first
    private final Map<Long, State> byId = new HashMap<>();
    private ScheduledBatch pending; // scheduled but not completed
    private long steps;
    private long admissions;
    private long preemptions;

    public Scheduler(PagedKvCache cache, SchedulerConfig config) {
        this.cache = cache;
        this.config = config;
        this.tpb = cache.config().tokensPerBlock();
    }

    /**
     * Queues a request.
     *
     * @throws KvCacheException {@code REQUEST_TOO_LARGE} when its prompt plus output needs more blocks than the
     *     cache has; {@code BAD_ARGUMENT} when an unfinished request has the same id
     */
    public void submit(Request r) {
        if (byId.containsKey(r.id())) {
            throw new KvCacheException(Reason.BAD_ARGUMENT,
                    "[Scheduler] request " + r.id() + " is already queued or running");
        }
        long blocks = blocksFor(r.maxCachedTokens());
        if (blocks > cache.config().numBlocks()) {
            throw new KvCacheException(Reason.REQUEST_TOO_LARGE, String.format(Locale.ROOT,
                    "[Scheduler] request %d needs up to %d blocks (prompt %d + %d new tokens at %d per block) but the"
                            + " cache has %d in all", r.id(), blocks, r.promptLength(), r.maxNewTokens(), tpb,
                    cache.config().numBlocks()));
        }
        State s = new State(r);
        waiting.addLast(s);
        byId.put(r.id(), s);
    }

    /**
     * Plans the next step and grows the scheduled sequences; the batch is empty when nothing is queued.
     *
     * @throws KvCacheException ({@code BAD_STATE}) when the previous batch has not been {@link #complete}d
     */
    public ScheduledBatch schedule() {
        if (pending != null) {
            throw new KvCacheException(Reason.BAD_STATE, "[Scheduler] step " + pending.step()
                    + " was scheduled but not completed");
        }
        int budget = config.maxTokensPerStep();
        int slots = config.maxSequencesPerStep();
        for (State s : running) {
            s.planned = 0;
        }
        for (State s : running) { // decodes first
            if (s.decoding() && slots > 0 && budget > 0) {
                s.planned = 1;
                budget--;
                slots--;
            }
        }
        for (State s : running) { // then prefill chunks
            if (!s.decoding() && slots > 0 && budget > 0) {
                s.planned = Math.min(s.pendingTokens(), budget);
                budget -= s.planned;
                slots--;
            }
        }
        List<ScheduledBatch.Entry> decodes = new ArrayList<>();
        List<ScheduledBatch.Entry> prefills = new ArrayList<>();
        List<Long> preempted = new ArrayList<>();
        for (int i = 0; i < running.size(); i++) { // oldest first; victims come from the end
            State s = running.get(i);
            if (s.planned == 0) {
                continue;
            }
            while (!cache.canAppend(s.seq, s.planned)) {
                State victim = running.getLast();
                if (victim.planned > 0) {
                    budget += victim.planned;
                    slots++;
                }
                preempt(victim);
                preempted.add(victim.request.id());
                if (victim == s) {
                    break;
                }
            }
            if (s.seq != null) {
                (s.decoding() ? decodes : prefills).add(grow(s, s.planned));
            }
        }
        if (preempted.isEmpty()) {
            admit(budget, slots, prefills);
        }
        decodes.addAll(prefills);
        pending = new ScheduledBatch(steps++, decodes, preempted);
        return pending;
    }

    /**
     * Records the step's results: {@code nextTokens[i]} is the token sampled for entry {@code i} (read only for
     * entries that {@link ScheduledBatch.Entry#samples() sample}). Requests that produced their end token or
     * reached their limit finish and free their blocks.
     *
     * @return the requests finished by this step
     * @throws KvCacheException ({@code BAD_STATE}) for a batch other than the last one scheduled
     */
    public List<Finished> complete(ScheduledBatch batch, int[] nextTokens) {
        if (batch == null || batch != pending) {
            throw new KvCacheException(Reason.BAD_STATE, "[Scheduler] complete() needs the batch of the last "
                    + "schedule() call" + (pending == null ? " (there is none pending)" : ", step " + pending.step()));
        }
        if (nextTokens.length < batch.entries().size()) {
            throw new KvCacheException(Reason.BAD_ARGUMENT, "[Scheduler] " + batch.entries().size()
                    + " entries but " + nextTokens.length + " next tokens");
        }
        pending = null;
        List<Finished> done = new ArrayList<>();
        for (int i = 0; i < batch.entries().size(); i++) {
            ScheduledBatch.Entry e = batch.entries().get(i);
            if (!e.samples()) {
                continue;
            }
            State s = byId.get(e.requestId());
            int token = nextTokens[i];
            s.add(token);
            s.generated++;
            Request r = s.request;
            if (r.eosToken() >= 0 && token == r.eosToken()) {
                done.add(finish(s, Finished.Reason.EOS));
            } else if (s.generated >= r.maxNewTokens()) {
                done.add(finish(s, Finished.Reason.LENGTH));
            }
        }
        return done;
    }

    /**
     * Removes a waiting or running request and frees its blocks.
     *
     * @throws KvCacheException {@code BAD_STATE} while a batch is pending (complete it first),
     *     {@code BAD_ARGUMENT} for an unknown id
     */
    public Finished abort(long requestId) {
        if (pending != null) {
            throw new KvCacheException(Reason.BAD_STATE, "[Scheduler] cannot abort request " + requestId
                    + " while step " + pending.step() + " is pending; complete it first");
        }
        State s = byId.get(requestId);
        if (s == null) {
            throw new KvCacheException(Reason.BAD_ARGUMENT, "[Scheduler] no unfinished request " + requestId);
        }
        if (s.seq == null) {
            waiting.remove(s);
            byId.remove(requestId);
            return s.finished(Finished.Reason.ABORTED);
        }
        return finish(s, Finished.Reason.ABORTED);
    }

    public int waitingCount() {
        return waiting.size();
    }

    public int runningCount() {
        return running.size();
    }

    /** True when no request is waiting or running. */
    public boolean idle() {
        return byId.isEmpty();
    }

    /** Preemptions so far. */
    public long preemptions() {
        return preemptions;
    }

    /** Requests admitted so far, counting re-admissions after preemption. */
    public long admissions() {
        return admissions;
    }

    // ---------------------------------------------------------------- internals

    /**
     * Starts waiting requests, front first, while the budget and sequence limit allow and the free blocks
     * cover the request's known tokens on top of what running prompts still need, plus the headroom. With
     * nothing running the front request always starts (it fits alone).
     */
    private void admit(int budget, int slots, List<ScheduledBatch.Entry> out) {
        long committed = 0; // blocks running sequences will take to finish their known tokens
        for (State s : running) {
            committed += blocksFor(s.size) - s.seq.blockCount();
        }
        while (!waiting.isEmpty() && slots > 0 && budget > 0) {
            State s = waiting.peekFirst();
            long need = blocksFor(s.size);
            if (!running.isEmpty() && cache.freeBlocks() - committed - need < config.headroomBlocks()) {
                return;
            }
            int chunk = (int) Math.min(Math.min(s.pendingTokens(), budget), (long) cache.freeBlocks() * tpb);
            waiting.pollFirst();
            s.seq = cache.newSequence(s.request.id());
            running.add(s);
            admissions++;
            out.add(grow(s, chunk));
            committed += need - s.seq.blockCount();
            budget -= chunk;
            slots--;
        }
    }

    private long blocksFor(long tokens) {
        return (tokens + tpb - 1) / tpb;
    }

    private ScheduledBatch.Entry grow(State s, int n) {
        boolean prefill = !s.decoding();
        int start = cache.append(s.seq, n);
        int[] tokens = Arrays.copyOfRange(s.tokens, start, start + n);
        return new ScheduledBatch.Entry(s.request.id(), s.seq, prefill, start, tokens, start + n == s.size);
    }

    private void preempt(State s) {
        cache.free(s.seq);
        s.seq = null;
        s.planned = 0;
        s.preemptions++;
        running.remove(s);
        waiting.addFirst(s);
        preemptions++;
    }

    private Finished finish(State s, Finished.Reason reason) {
        cache.free(s.seq);
        s.seq = null;
        running.remove(s);
        byId.remove(s.request.id());
        return s.finished(reason);
    }

    /** A request's progress: its known tokens (prompt then generated) and its cache sequence while running. */
    private static final class State {
        final Request request;
        int[] tokens; // (size) prompt then generated tokens
        int size;
        int generated;
        int preemptions;
        int planned; // tokens planned in the current step
        KvSequence seq; // null while waiting

        State(Request r) {
            request = r;
            tokens = Arrays.copyOf(r.prompt(), r.promptLength() + Math.min(r.maxNewTokens(), 64));
            size = r.promptLength();
        }

        /** Known tokens whose K/V are not in the cache. */
        int pendingTokens() {
            return size - (seq == null ? 0 : seq.length());
        }

        /** One pending generated token: a decode step (a recompute after preemption is a prefill). */
        boolean decoding() {
            return generated > 0 && pendingTokens() == 1;
        }

        void add(int token) {
            if (size == tokens.length) {
                tokens = Arrays.copyOf(tokens, 2 * size);
            }
            tokens[size++] = token;
        }

        Finished finished(Finished.Reason reason) {
            return new Finished(request.id(), Arrays.copyOfRange(tokens, request.promptLength(), size), reason,
                    preemptions);
        }
    }
}
