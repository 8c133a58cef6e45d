package dev.rlx.serve;

import dev.rlx.ir.RlxException;
import dev.rlx.onnx.embed.SentenceEmbedder;
import dev.rlx.onnx.text.BertTokenizer;
import dev.rlx.onnx.text.Encoding;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Joins the texts of concurrent embeddings requests into one encoder run. Requests tokenize on their own
 * threads and queue; one worker thread (the embedder is not thread-safe) takes whatever has queued, up to
 * {@code maxBatch} texts, runs it as one batch and completes each request with its rows.
 *
 * <p>Batches are padded to a power-of-two size and length (rows of {@code [CLS][SEP]}, pad tokens), so that a
 * few compiled shapes serve every mix of requests; padding changes an embedding by float rounding only.
 */
final class EmbeddingBatcher implements AutoCloseable {
    /** One request's texts, encoded, and where its rows go. */
    private record Job(List<Encoding> encodings, CompletableFuture<float[][]> result) {}

    private static final int MIN_LENGTH = 8;

    private final SentenceEmbedder embedder;
    private final BertTokenizer tokenizer;
    private final int maxBatch;
    private final int capacity;
    private final ServerMetrics metrics;
    private final LinkedBlockingQueue<Job> queue = new LinkedBlockingQueue<>();
    private final AtomicInteger queuedTexts = new AtomicInteger();
    private final Thread worker;
    private volatile boolean closed;

    EmbeddingBatcher(SentenceEmbedder embedder, int maxBatch, int capacity, ServerMetrics metrics) {
        this.embedder = embedder;
        this.tokenizer = embedder.tokenizer();
        this.maxBatch = maxBatch;
        this.capacity = capacity;
        this.metrics = metrics;
        // a platform thread: the encoder run is long CPU work that would pin a virtual thread's carrier
        this.worker = Thread.ofPlatform().name("rlx-serve-embed").daemon().start(this::loop);
        metrics.gauge("rlx_embedding_queue_texts", "Texts waiting for the encoder.", queuedTexts::get);
    }

    /** The texts' encodings (truncated as the tokenizer's file says), in order. */
    List<Encoding> encode(List<String> texts) {
        List<Encoding> out = new ArrayList<>(texts.size());
        for (String t : texts) {
            out.add(tokenizer.encode(t));
        }
        return out;
    }

    /**
     * Queues {@code encodings} for the next batch.
     *
     * @throws ApiError 429 when the queue holds {@code capacity} texts already, 503 once closed
     */
    CompletableFuture<float[][]> submit(List<Encoding> encodings) {
        if (closed) {
            throw ApiError.unavailable("the server is shutting down");
        }
        int n = encodings.size();
        int queued = queuedTexts.addAndGet(n);
        // a request over the capacity on its own still runs when nothing else waits
        if (queued > capacity && queued != n) {
            queuedTexts.addAndGet(-n);
            throw ApiError.overloaded("the embeddings queue is full (" + capacity + " texts); retry shortly", 1);
        }
        Job job = new Job(encodings, new CompletableFuture<>());
        queue.add(job);
        return job.result();
    }

    private void loop() {
        List<Job> batch = new ArrayList<>();
        while (!closed) {
            Job first;
            try {
                first = queue.poll(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                break;
            }
            if (first == null) {
                continue;
            }
            batch.clear();
            batch.add(first);
            int texts = first.encodings().size();
            // one request larger than a batch runs alone (split below); others join while they fit
            for (Job next; (next = queue.peek()) != null && texts + next.encodings().size() <= maxBatch; ) {
                batch.add(queue.poll());
                texts += next.encodings().size();
            }
            run(batch, texts);
        }
        for (Job j; (j = queue.poll()) != null; ) {
            j.result().completeExceptionally(ApiError.unavailable("the server is shutting down"));
        }
    }

    private void run(List<Job> batch, int texts) {
        List<Encoding> all = new ArrayList<>(texts);
        for (Job j : batch) {
            all.addAll(j.encodings());
        }
        try {
            float[][] rows = new float[texts][];
            for (int from = 0; from < texts; from += maxBatch) {
                List<Encoding> part = all.subList(from, Math.min(texts, from + maxBatch));
                float[][] v = embedPadded(part);
                System.arraycopy(v, 0, rows, from, part.size());
            }
            int at = 0;
            for (Job j : batch) {
                int n = j.encodings().size();
                float[][] mine = new float[n][];
                System.arraycopy(rows, at, mine, 0, n);
                at += n;
                j.result().complete(mine);
            }
        } catch (RlxException e) {
            for (Job j : batch) {
                j.result().completeExceptionally(ApiError.internal("the encoder failed: " + e.getMessage()));
            }
        } finally {
            queuedTexts.addAndGet(-texts);
        }
    }

    /** Embeds {@code part} (at most maxBatch texts) in a batch padded to power-of-two rows and length. */
    private float[][] embedPadded(List<Encoding> part) {
        int longest = MIN_LENGTH;
        for (Encoding e : part) {
            longest = Math.max(longest, e.length());
        }
        int seq = Math.max(longest, Math.min(tokenizer.maxLength(), ceilPow2(longest)));
        int rows = ceilPow2(part.size());
        List<Encoding> padded = new ArrayList<>(part);
        Encoding filler = tokenizer.encode("");
        while (padded.size() < rows) {
            padded.add(filler);
        }
        metrics.embeddingBatch.observe(part.size());
        float[][] v = embedder.embedEncoded(padded, seq);
        float[][] out = new float[part.size()][];
        System.arraycopy(v, 0, out, 0, part.size());
        return out;
    }

    private static int ceilPow2(int n) {
        return n <= 1 ? 1 : Integer.highestOneBit(n - 1) << 1;
    }

    /** Stops the worker after the batch it runs; requests still queued fail with 503. */
    @Override
    public void close() {
        closed = true;
        try {
            worker.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
