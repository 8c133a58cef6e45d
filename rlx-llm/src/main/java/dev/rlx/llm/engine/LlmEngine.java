package dev.rlx.llm.engine;

import dev.rlx.llm.engine.EngineException.Reason;
import dev.rlx.llm.kv.Finished;
import dev.rlx.llm.kv.PagedKvCache;
import dev.rlx.llm.kv.Request;
import dev.rlx.llm.kv.ScheduledBatch;
import dev.rlx.llm.kv.Scheduler;
import dev.rlx.llm.kv.SchedulerConfig;
import dev.rlx.llm.model.BatchForward;
import dev.rlx.llm.tokenizer.Tokenizer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Generates text with a decoder: requests from any thread are queued, and one step-loop thread (a daemon platform
 * thread) drives the continuous-batching {@link Scheduler} over the model's paged KV cache. Each step runs every
 * scheduled sequence through {@link BatchForward#forward} at once, then per request samples with its own
 * {@link dev.rlx.llm.sample.SamplerChain} (seeded: same seed, same tokens), streams valid UTF-8 through its
 * {@link dev.rlx.llm.tokenizer.TokenStream}, and ends it on an end-of-generation or stop token, a stop string or
 * its token limit. A request's tokens do not depend on what else runs: the model's logits are a function of the
 * sequence alone, and preempted sequences are recomputed, not resampled.
 *
 * <p>In the loop nothing is allocated per token but small records: the event, its text and (when asked) its top
 * logprobs, plus the scheduler's per-step batch. An exception from {@code forward} ends the requests of that step
 * with {@link FinishReason#ERROR}; the engine goes on with the rest.
 *
 * <pre>{@code
 * try (LlmEngine engine = LlmEngine.open(Path.of("model.gguf"), EngineOptions.defaults())) {
 *     int[] prompt = engine.tokenizer().encode("Once upon a time");
 *     Generation g = engine.submit(GenerationRequest.of(prompt, 64));
 *     for (TokenEvent e; (e = g.next()) != null; ) {
 *         System.out.print(e.text());
 *     }
 * }
 * }</pre>
 */
public final class LlmEngine implements AutoCloseable {
    /** Free blocks admission leaves for running sequences to grow into (see {@link SchedulerConfig}). */
    private static final int HEADROOM_BLOCKS = 1;

    private final BatchForward model;
    private final AutoCloseable resource; // closed after the model (the GGUF mapping its weights point into), or null
    private final Tokenizer tokenizer;
    private final ModelInfo info;
    private final EngineOptions options;
    private final PagedKvCache cache;
    private final int vocab;
    private final int contextLength;
    private final Scheduler scheduler;
    private final Thread loop;
    private final Object submitLock = new Object();
    private final ConcurrentLinkedQueue<ActiveGeneration> inbox = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<ActiveGeneration> cancels = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger(); // submitted, not yet run
    private final AtomicLong nextId = new AtomicLong(1);
    private final AtomicLong promptTokens = new AtomicLong();
    private volatile boolean closed;
    private volatile String failure; // set when the loop itself died

    // ---- step loop only
    private final Map<Long, ActiveGeneration> live = new HashMap<>();
    private final float[] logits; // [maxSequences, vocab]
    private final float[] row; // one request's logits, handed to its sampler chain
    private final int[] next; // sampled token per batch entry
    private final LogProbs logProbs = new LogProbs();

    // ---- published by the loop after every step
    private volatile int statWaiting;
    private volatile int statRunning;
    private volatile int statFree;
    private volatile long statGenerated;
    private volatile long statSteps;
    private volatile int statLastSequences;
    private volatile int statLastTokens;

    private LlmEngine(BatchForward model, Tokenizer tokenizer, ModelInfo info, EngineOptions options,
                      AutoCloseable resource) {
        this.model = model;
        this.resource = resource;
        this.tokenizer = tokenizer;
        this.options = options;
        this.cache = model.cache();
        this.vocab = model.vocabSize();
        int ctx = Math.min(model.contextLength(), info.contextLength());
        this.contextLength = options.contextLength() == 0 ? ctx : Math.min(ctx, options.contextLength());
        this.info = new ModelInfo(info.name(), contextLength, vocab, info.chatTemplate(), info.eosToken());
        if (tokenizer.vocabulary().size() > vocab) {
            throw new EngineException(Reason.INVALID_REQUEST, String.format(Locale.ROOT,
                    "[LlmEngine] the tokenizer has %d tokens but the model's logits only %d",
                    tokenizer.vocabulary().size(), vocab));
        }
        long logitFloats = (long) options.maxSequences() * vocab;
        if (logitFloats > Integer.MAX_VALUE - 8) {
            throw new EngineException(Reason.INVALID_REQUEST, String.format(Locale.ROOT,
                    "[LlmEngine] %d sequences x %d logits do not fit in one array; lower maxSequences",
                    options.maxSequences(), vocab));
        }
        this.scheduler = new Scheduler(cache, new SchedulerConfig(options.maxBatchTokens(), options.maxSequences(),
                HEADROOM_BLOCKS));
        this.logits = new float[(int) logitFloats];
        this.row = new float[vocab];
        this.next = new int[options.maxSequences()];
        this.statFree = cache.freeBlocks();
        this.loop = Thread.ofPlatform().daemon().name("rlx-llm-engine").unstarted(this::runLoop);
        loop.start();
    }

    /**
     * An engine over {@code model}, which it owns from now on (closing the engine closes it).
     *
     * @throws EngineException ({@code INVALID_REQUEST}) when the tokenizer has more tokens than the model's logits
     */
    public static LlmEngine of(BatchForward model, Tokenizer tokenizer, ModelInfo info, EngineOptions options) {
        return of(model, tokenizer, info, options, null);
    }

    /** {@link #of} that also closes {@code resource} after the model. */
    static LlmEngine of(BatchForward model, Tokenizer tokenizer, ModelInfo info, EngineOptions options,
                        AutoCloseable resource) {
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(tokenizer, "tokenizer");
        Objects.requireNonNull(info, "info");
        Objects.requireNonNull(options, "options");
        return new LlmEngine(model, tokenizer, info, options, resource);
    }

    /**
     * Loads a GGUF model (the {@code llama} architecture family) with its tokenizer and starts the step loop.
     *
     * @throws EngineException ({@code MODEL_ERROR}) when the file cannot be used as a model
     */
    public static LlmEngine open(Path gguf, EngineOptions options) throws IOException {
        return ModelLoader.open(gguf, options);
    }

    public Tokenizer tokenizer() {
        return tokenizer;
    }

    public ModelInfo info() {
        return info;
    }

    public EngineOptions options() {
        return options;
    }

    /**
     * Queues a request; never blocks.
     *
     * @throws EngineException {@code CLOSED} after {@link #close()}; {@code INVALID_REQUEST} for a token outside
     *     the vocabulary; {@code CONTEXT_EXCEEDED} when prompt plus output exceed the context length or the
     *     KV cache; {@code QUEUE_FULL} when {@link EngineOptions#queueCapacity()} requests are waiting
     */
    public Generation submit(GenerationRequest request) {
        Objects.requireNonNull(request, "request");
        int[] prompt = request.promptShared();
        for (int i = 0; i < prompt.length; i++) {
            if (prompt[i] < 0 || prompt[i] >= vocab) {
                throw new EngineException(Reason.INVALID_REQUEST, String.format(Locale.ROOT,
                        "[LlmEngine] prompt token %d (at %d) is outside the vocabulary of %d", prompt[i], i, vocab));
            }
        }
        int maxTokens = checkContext(prompt.length, request.maxTokens());
        long id = nextId.getAndIncrement();
        ActiveGeneration g = new ActiveGeneration(id, this, request, maxTokens);
        synchronized (submitLock) {
            if (closed) {
                throw new EngineException(Reason.CLOSED, "[LlmEngine] the engine is closed"
                        + (failure == null ? "" : " (" + failure + ")"));
            }
            if (queued.incrementAndGet() > options.queueCapacity()) {
                queued.decrementAndGet();
                throw new EngineException(Reason.QUEUE_FULL, String.format(Locale.ROOT,
                        "[LlmEngine] %d requests are already waiting (queueCapacity)", options.queueCapacity()));
            }
            promptTokens.addAndGet(prompt.length);
            inbox.add(g);
        }
        LockSupport.unpark(loop);
        return g;
    }

    /** {@link #submit} and {@link Generation#await()}. */
    public GenerationResult generate(GenerationRequest request) {
        Generation g = submit(request);
        try {
            return g.await();
        } catch (InterruptedException e) {
            g.cancel();
            Thread.currentThread().interrupt();
            throw new EngineException(Reason.CLOSED, "[LlmEngine] interrupted while waiting for request " + g.id(),
                    e);
        }
    }

    public EngineStats stats() {
        return new EngineStats(statWaiting + inbox.size(), statRunning,
                cache.config().numBlocks(), statFree, promptTokens.get(), statGenerated, statSteps,
                statLastSequences, statLastTokens);
    }

    /** Cancels every request (finish CANCELLED), stops the step loop, waits for it and closes the model. */
    @Override
    public void close() {
        synchronized (submitLock) {
            if (closed && !loop.isAlive()) {
                return;
            }
            closed = true;
        }
        LockSupport.unpark(loop);
        boolean interrupted = false;
        while (loop.isAlive()) {
            try {
                loop.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        model.close();
        if (resource != null) {
            try {
                resource.close();
            } catch (Exception e) {
                throw new EngineException(Reason.MODEL_ERROR, "[LlmEngine] closing the model file failed: " + e, e);
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    void cancelLater(ActiveGeneration g) {
        cancels.add(g);
        LockSupport.unpark(loop);
    }

    /** The token limit of a request, or CONTEXT_EXCEEDED before it is queued. */
    private int checkContext(int promptLength, int maxTokens) {
        if (promptLength >= contextLength) {
            throw new EngineException(Reason.CONTEXT_EXCEEDED, String.format(Locale.ROOT,
                    "[LlmEngine] the prompt has %d tokens but the context length is %d, leaving no room to generate",
                    promptLength, contextLength));
        }
        int max = maxTokens == 0 ? contextLength - promptLength : maxTokens;
        if ((long) promptLength + max > contextLength) {
            throw new EngineException(Reason.CONTEXT_EXCEEDED, String.format(Locale.ROOT,
                    "[LlmEngine] prompt %d + max tokens %d = %d exceeds the context length %d", promptLength, max,
                    (long) promptLength + max, contextLength));
        }
        int tpb = cache.config().tokensPerBlock();
        long blocks = ((long) promptLength + max - 1 + tpb - 1) / tpb;
        if (blocks > cache.config().numBlocks()) {
            throw new EngineException(Reason.CONTEXT_EXCEEDED, String.format(Locale.ROOT,
                    "[LlmEngine] prompt %d + max tokens %d need %d KV blocks of %d tokens but the cache has %d",
                    promptLength, max, blocks, tpb, cache.config().numBlocks()));
        }
        return max;
    }

    // ---------------------------------------------------------------- step loop

    private void runLoop() {
        try {
            while (true) {
                boolean closing = closed;
                admitSubmissions();
                if (closing) {
                    finishAll(FinishReason.CANCELLED, null);
                    break;
                }
                applyCancels();
                if (scheduler.idle()) {
                    publish(null);
                    if (inbox.isEmpty() && cancels.isEmpty() && !closed) {
                        LockSupport.park(this);
                    }
                    continue;
                }
                step();
            }
        } catch (Throwable t) { // the loop must not die silently: fail what runs, refuse what comes
            failure = "the step loop failed: " + t;
            synchronized (submitLock) {
                closed = true;
            }
            admitSubmissions();
            finishAll(FinishReason.ERROR, t);
            if (t instanceof Error e && !(t instanceof OutOfMemoryError)) {
                throw e;
            }
        } finally {
            publish(null);
        }
    }

    private void admitSubmissions() {
        for (ActiveGeneration g; (g = inbox.poll()) != null; ) {
            live.put(g.id(), g);
            scheduler.submit(new Request(g.id(), g.request.promptShared(), g.maxTokens, -1));
        }
    }

    private void applyCancels() {
        for (ActiveGeneration g; (g = cancels.poll()) != null; ) {
            if (!g.finished && live.containsKey(g.id())) {
                scheduler.abort(g.id());
                end(g, FinishReason.CANCELLED);
            }
        }
    }

    private void finishAll(FinishReason reason, Throwable cause) {
        for (ActiveGeneration g : List.copyOf(live.values())) {
            try {
                scheduler.abort(g.id());
            } catch (RuntimeException ignored) { // a pending batch after a failure: the cache is dropped anyway
            }
            end(g, reason);
        }
        for (ActiveGeneration g; (g = inbox.poll()) != null; ) {
            queued.decrementAndGet();
            g.finish(reason, System.nanoTime());
        }
    }

    private void step() {
        ScheduledBatch batch = scheduler.schedule();
        List<ScheduledBatch.Entry> entries = batch.entries();
        long now = System.nanoTime();
        for (ScheduledBatch.Entry e : entries) {
            ActiveGeneration g = live.get(e.requestId());
            if (!g.started) {
                g.started = true;
                g.startNanos = now;
                queued.decrementAndGet();
            }
        }
        if (entries.isEmpty()) {
            publish(batch);
            return;
        }
        try {
            model.forward(batch, logits);
        } catch (RuntimeException e) {
            failStep(batch, e);
            return;
        }
        int n = entries.size();
        boolean[] failed = null;
        for (int i = 0; i < n; i++) {
            ScheduledBatch.Entry e = entries.get(i);
            next[i] = 0;
            if (!e.samples()) {
                continue;
            }
            ActiveGeneration g = live.get(e.requestId());
            System.arraycopy(logits, i * vocab, row, 0, vocab);
            try {
                logProbs.of(row, vocab, g.request.topLogprobs());
                next[i] = g.chain.sample(row);
            } catch (RuntimeException ex) { // NaN logits, say: this request fails, the others go on
                if (failed == null) {
                    failed = new boolean[n];
                }
                failed[i] = true;
            }
        }
        List<Finished> done = scheduler.complete(batch, next);
        now = System.nanoTime();
        long generated = statGenerated;
        for (int i = 0; i < n; i++) {
            ScheduledBatch.Entry e = entries.get(i);
            if (!e.samples()) {
                continue;
            }
            ActiveGeneration g = live.get(e.requestId());
            boolean schedulerDone = contains(done, g.id());
            if (failed != null && failed[i]) {
                if (!schedulerDone) {
                    scheduler.abort(g.id());
                }
                end(g, FinishReason.ERROR);
                continue;
            }
            int token = next[i];
            generated++;
            boolean eog = token == info.eosToken() || tokenizer.vocabulary().isEndOfGeneration(token)
                    || g.isStopToken(token);
            FinishReason finish;
            try {
                finish = g.accept(token, eog, logProbs.logprob(rawLogit(i, token)), topOf(g), now);
            } catch (RuntimeException ex) { // a decoding failure ends this request only
                finish = FinishReason.ERROR;
            }
            if (finish == FinishReason.ERROR && !schedulerDone) {
                scheduler.abort(g.id());
            }
            if (finish == FinishReason.STOP && !schedulerDone) {
                scheduler.abort(g.id());
            }
            if (finish != null) {
                end(g, finish);
            } else if (schedulerDone) { // the scheduler's own limit (cannot differ from ours, but be exact)
                end(g, FinishReason.LENGTH);
            }
        }
        statGenerated = generated;
        publish(batch);
    }

    /** The raw logit of {@code token} in batch row {@code i} (the row copy may have been changed by sampling). */
    private float rawLogit(int i, int token) {
        return logits[i * vocab + token];
    }

    /** Top logprobs of the step's current row (the last {@link LogProbs#of} call), as records. */
    private List<TopLogprob> topOf(ActiveGeneration g) {
        int k = logProbs.topCount();
        if (g.request.topLogprobs() == 0 || k == 0) {
            return List.of();
        }
        List<TopLogprob> top = new ArrayList<>(k);
        for (int j = 0; j < k; j++) {
            int id = logProbs.topId(j);
            String text = id < tokenizer.vocabulary().size()
                    ? new String(tokenizer.piece(id, false), StandardCharsets.UTF_8) : "";
            top.add(new TopLogprob(id, text, logProbs.topLogprob(j)));
        }
        return top;
    }

    private static boolean contains(List<Finished> done, long id) {
        for (Finished f : done) {
            if (f.requestId() == id) {
                return true;
            }
        }
        return false;
    }

    /** A failed forward: every request of the step ends with ERROR, their blocks are freed, the engine goes on. */
    private void failStep(ScheduledBatch batch, RuntimeException cause) {
        List<Finished> done = scheduler.complete(batch, new int[batch.entries().size()]);
        for (ScheduledBatch.Entry e : batch.entries()) {
            ActiveGeneration g = live.get(e.requestId());
            if (!contains(done, g.id())) {
                scheduler.abort(g.id());
            }
            end(g, FinishReason.ERROR);
        }
        publish(batch);
    }

    private void end(ActiveGeneration g, FinishReason reason) {
        live.remove(g.id());
        if (!g.started) { // ended while waiting: it leaves the queue now
            queued.decrementAndGet();
            g.started = true;
            g.startNanos = System.nanoTime();
        }
        publish(null); // its blocks are free already: stats show it by the time the result is out
        g.finish(reason, System.nanoTime());
    }

    private void publish(ScheduledBatch batch) {
        statWaiting = scheduler.waitingCount();
        statRunning = scheduler.runningCount();
        statFree = cache.freeBlocks();
        if (batch != null) {
            statSteps = batch.step() + 1;
            statLastSequences = batch.entries().size();
            statLastTokens = batch.tokenCount();
        }
    }
}
