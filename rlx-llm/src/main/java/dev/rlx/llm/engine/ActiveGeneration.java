package dev.rlx.llm.engine;

import dev.rlx.llm.sample.SamplerChain;
import dev.rlx.llm.tokenizer.TokenStream;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * One request inside the engine: the consumer's side ({@link Generation}: events, result, cancel) and the step
 * loop's side (sampler chain, UTF-8 stream, stop-string watch, generated tokens). Loop-side fields are touched
 * by the step loop only; the hand-over to consumers goes through the event queue and the latch.
 */
final class ActiveGeneration implements Generation {
    /** Marks the end of the event stream (compared by identity). */
    private static final TokenEvent END = new TokenEvent(-1, "", 0f, List.of());

    private final long id;
    private final LlmEngine engine;
    final GenerationRequest request;
    final int maxTokens; // effective: the request's, or what the context leaves
    final long submitNanos;
    private final LinkedBlockingQueue<TokenEvent> events = new LinkedBlockingQueue<>();
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile GenerationResult result;
    private volatile boolean cancelRequested;
    private boolean ended; // consumer side: END was taken

    // ---- step loop only
    final SamplerChain chain;
    final int[] stopTokens; // sorted, for an allocation-free lookup
    private final TokenStream stream;
    private final int tokenizerSize;
    private final StopText stop;
    private final StringBuilder text = new StringBuilder();
    private final int[] tokens;
    private int count;
    boolean started;
    boolean finished;
    long startNanos;
    long firstTokenNanos;

    ActiveGeneration(long id, LlmEngine engine, GenerationRequest request, int maxTokens) {
        this.id = id;
        this.engine = engine;
        this.request = request;
        this.maxTokens = maxTokens;
        this.submitNanos = System.nanoTime();
        this.chain = request.sampling().intoChain();
        for (int t : request.promptShared()) {
            chain.accept(t); // penalties and DRY see the prompt, as in llama.cpp
        }
        this.stopTokens = request.stopTokens().stream().mapToInt(Integer::intValue).sorted().toArray();
        this.stream = engine.tokenizer().stream();
        this.tokenizerSize = engine.tokenizer().vocabulary().size();
        this.stop = new StopText(request.stop());
        this.tokens = new int[maxTokens];
    }

    @Override
    public long id() {
        return id;
    }

    @Override
    public TokenEvent next() throws InterruptedException {
        synchronized (events) {
            if (ended) {
                return null;
            }
            TokenEvent e = events.take();
            if (e == END) {
                ended = true;
                return null;
            }
            return e;
        }
    }

    @Override
    public GenerationResult await() throws InterruptedException {
        done.await();
        return result;
    }

    @Override
    public void cancel() {
        if (!cancelRequested && result == null) {
            cancelRequested = true;
            engine.cancelLater(this);
        }
    }

    boolean isStopToken(int token) {
        return Arrays.binarySearch(stopTokens, token) >= 0;
    }

    /**
     * Records a sampled token and emits its event. Returns STOP when it ends the generation (end-of-generation or
     * stop token, or a completed stop string), LENGTH when it is the last allowed token, null otherwise.
     */
    FinishReason accept(int token, boolean endOfGeneration, float logprob, List<TopLogprob> top, long now) {
        tokens[count++] = token;
        if (count == 1) {
            firstTokenNanos = now - submitNanos;
        }
        FinishReason finish = null;
        String released;
        if (endOfGeneration) {
            released = concat(stop.flush(), stop.offer(stream.finish()), stop.flush());
            finish = FinishReason.STOP;
        } else {
            // a model's vocabulary may be padded beyond the tokenizer's: such tokens have no text
            released = stop.offer(token < tokenizerSize ? stream.next(token) : "");
            if (stop.stopped()) {
                finish = FinishReason.STOP;
            } else if (count == maxTokens) {
                released = concat(released, stop.offer(stream.finish()), stop.flush());
                finish = stop.stopped() ? FinishReason.STOP : FinishReason.LENGTH;
            }
        }
        text.append(released);
        events.add(new TokenEvent(token, released, logprob, top));
        return finish;
    }

    private static String concat(String a, String b, String c) {
        return a.isEmpty() && c.isEmpty() ? b : a + b + c;
    }

    /** Ends the generation: publishes the result and the end of the event stream. */
    void finish(FinishReason reason, long now) {
        finished = true;
        long queued = (started ? startNanos : now) - submitNanos;
        result = new GenerationResult(text.toString(), Arrays.copyOf(tokens, count), reason,
                request.promptLength(), count, queued, firstTokenNanos, now - submitNanos);
        events.add(END);
        done.countDown();
    }

    int generated() {
        return count;
    }
}
