package dev.rlx.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rlx.ir.quant.BlockFormat;
import dev.rlx.llm.engine.EngineOptions;
import dev.rlx.llm.engine.LlmEngine;
import dev.rlx.onnx.embed.MiniLm;
import dev.rlx.onnx.embed.SentenceEmbedder;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.serve.RlxServer;
import dev.rlx.serve.ServeOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code ./rlx-bench/run serve-load [--size tiny|100m|1b] [--type f32|q8_0] [--clients 1,4,16,64] [--requests 2]
 * [--max-tokens 32] [--seconds 60] [--threads N] [--embeddings 200]}: {@code rlx serve}'s server on loopback over
 * a synthetic Llama (as {@link LlmBench} writes it), driven by streaming completion clients on virtual threads,
 * each level of concurrency in turn: aggregate decode tokens/s, p50/p99 time to first token and inter-token
 * latency, requests lost (anything but a 200 stream ending in {@code [DONE]}) and the KV blocks free after the
 * level. Then embeddings requests/s through the server against {@link SentenceEmbedder} called directly. Each
 * level is bounded by {@code --requests} per client and {@code --seconds}.
 */
public final class ServeLoad {
    private ServeLoad() {}

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(300);
    private static final java.util.concurrent.atomic.AtomicInteger LOSSES_SHOWN =
            new java.util.concurrent.atomic.AtomicInteger();

    record Args(String size, String type, int[] clients, int requests, int maxTokens, int seconds, int threads,
                int embeddings) {}

    /**
     * One streamed request as the client saw it: whether it ended properly, its tokens, the time to its first
     * token, the gaps between tokens and when (System.nanoTime) its first and last token came.
     */
    record Sample(boolean ok, int tokens, long ttftNanos, long[] gaps, long firstAt, long lastAt, long[] times) {
        static Sample lost() {
            return new Sample(false, 0, 0, new long[0], 0, 0, new long[0]);
        }

        /** A lost request, its reason printed (the first few of a run), so a loss can be told from a slow one. */
        static Sample lost(String why) {
            if (LOSSES_SHOWN.getAndIncrement() < 5) {
                System.out.println("      lost request: " + why);
            }
            return lost();
        }
    }

    public static void main(String[] argv) throws Exception {
        Args a = parse(argv);
        Path dir = Files.createDirectories(Path.of("target", "llm"));
        Path model = LlmBench.modelFile(dir, a.size(), a.type());
        int maxClients = Arrays.stream(a.clients()).max().orElse(1);
        EngineOptions eo = EngineOptions.defaults().withThreads(a.threads()).withKvStorage(BlockFormat.F16)
                .withMaxSequences(Math.min(64, maxClients)).withMaxBatchTokens(512).withQueueCapacity(1024)
                .withContextLength(64 + a.maxTokens() + 32);
        System.out.printf(Locale.ROOT, "serve-load: synthetic %s %s, %d threads, %d cores visible, max %d tokens per"
                        + " request, %d requests per client, %d s per level at most%n", a.size(), a.type(),
                a.threads(), Runtime.getRuntime().availableProcessors(), a.maxTokens(), a.requests(), a.seconds());
        try (LlmEngine engine = LlmEngine.open(model, eo);
             RlxServer server = RlxServer.builder(ServeOptions.defaults().withPort(0))
                     .generation("bench", engine, null).start();
             HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                     .executor(Executors.newVirtualThreadPerTaskExecutor()).build()) {
            int port = server.port();
            level(http, port, 1, 1, a.maxTokens(), a.seconds()); // warm-up: graphs compiled, kernels JIT-compiled
            long heap0 = usedHeap();
            double single = 0;
            for (int c : a.clients()) {
                double rate = report(c, level(http, port, c, a.requests(), a.maxTokens(), a.seconds()),
                        engine.stats().kvBlocksFree(), engine.stats().kvBlocksTotal());
                if (c == 1) {
                    single = rate;
                } else if (single > 0) {
                    System.out.printf(Locale.ROOT, "      %d streams / 1 stream, aggregate decode tokens/s (while all decode when they overlap): %.2fx%n", c,
                            rate / single);
                }
            }
            System.out.printf(Locale.ROOT, "heap used after GC: %.1f MiB before the levels, %.1f MiB after%n",
                    heap0 / 1048576.0, usedHeap() / 1048576.0);
        }
        if (a.embeddings() > 0) {
            embeddings(a.embeddings());
        }
    }

    /** Prints a level's line; returns its aggregate tokens/s. */
    private static double report(int clients, Level l, int free, int total) {
        long tokens = 0;
        long decoded = 0; // tokens after each request's first
        long decodeFrom = Long.MAX_VALUE;
        long decodeTo = Long.MIN_VALUE;
        int lost = 0;
        List<Long> ttft = new ArrayList<>();
        List<Long> gaps = new ArrayList<>();
        for (Sample s : l.samples) {
            if (!s.ok) {
                lost++;
                continue;
            }
            tokens += s.tokens;
            if (s.ttftNanos > 0) {
                ttft.add(s.ttftNanos);
                decoded += s.gaps.length;
                decodeFrom = Math.min(decodeFrom, s.firstAt);
                decodeTo = Math.max(decodeTo, s.lastAt);
            }
            for (long g : s.gaps) {
                gaps.add(g);
            }
        }
        double rate = tokens / (l.wallNanos / 1e9);
        // decode: the tokens after each first one, over the span from the first first-token to the last token
        // (prefill, which this model's kernels do at about the decode rate, stays out of it)
        double decodeRate = decodeTo > decodeFrom ? decoded / ((decodeTo - decodeFrom) / 1e9) : Double.NaN;
        // steady state: tokens while every stream of the level was decoding (after the last first token, before
        // the first last token), over that window; what continuous batching gives once prefill is done
        long steadyFrom = Long.MIN_VALUE;
        long steadyTo = Long.MAX_VALUE;
        for (Sample s : l.samples) {
            if (s.ok && s.times.length > 1) {
                steadyFrom = Math.max(steadyFrom, s.firstAt);
                steadyTo = Math.min(steadyTo, s.lastAt);
            }
        }
        long steadyTokens = 0;
        for (Sample s : l.samples) {
            for (long t : s.times) {
                if (t > steadyFrom && t <= steadyTo) {
                    steadyTokens++;
                }
            }
        }
        double steadyRate = steadyTo > steadyFrom ? steadyTokens / ((steadyTo - steadyFrom) / 1e9) : Double.NaN;
        System.out.printf(Locale.ROOT, "clients %3d | %4d requests, %6d tokens in %6.2f s: %8.1f tok/s end to end,"
                        + " %8.1f tok/s decode, %8.1f tok/s all decoding | TTFT p50 %7.1f ms p99 %7.1f ms | inter-token p50 %6.1f ms"
                        + " p99 %6.1f ms | lost %d | KV free %d/%d | heap after GC %.0f MiB%n", clients,
                l.samples.size(), tokens, l.wallNanos / 1e9, rate, decodeRate, steadyRate, pct(ttft, 50), pct(ttft, 99),
                pct(gaps, 50), pct(gaps, 99), lost, free, total, usedHeap() / 1048576.0);
        return Double.isNaN(steadyRate) ? decodeRate : steadyRate; // NaN when the streams did not all overlap
    }

    private static double pct(List<Long> v, int p) {
        if (v.isEmpty()) {
            return Double.NaN;
        }
        long[] s = v.stream().mapToLong(Long::longValue).sorted().toArray();
        int i = (int) Math.min(s.length - 1, Math.ceil(p / 100.0 * s.length) - 1);
        return s[Math.max(0, i)] / 1e6;
    }

    record Level(List<Sample> samples, long wallNanos) {}

    private static Level level(HttpClient http, int port, int clients, int requests, int maxTokens, int seconds)
            throws Exception {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        AtomicInteger seq = new AtomicInteger();
        List<Future<List<Sample>>> fs = new ArrayList<>();
        long t0 = System.nanoTime();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int c = 0; c < clients; c++) {
                fs.add(pool.submit(() -> {
                    List<Sample> mine = new ArrayList<>();
                    for (int r = 0; r < requests && System.nanoTime() < deadline; r++) {
                        mine.add(stream(http, port, seq.getAndIncrement(), maxTokens));
                    }
                    return mine;
                }));
            }
            List<Sample> all = new ArrayList<>();
            for (Future<List<Sample>> f : fs) {
                all.addAll(f.get(seconds + 300L, TimeUnit.SECONDS));
            }
            return new Level(all, System.nanoTime() - t0);
        }
    }

    /** One streaming completion; prompts differ per request so no two sequences are the same. */
    private static Sample stream(HttpClient http, int port, int n, int maxTokens) {
        String body = String.format(Locale.ROOT, "{\"model\": \"bench\", \"prompt\": \"Request %d: once upon a time"
                + " in a land far away there lived\", \"max_tokens\": %d, \"temperature\": 0.8, \"seed\": %d,"
                + " \"stream\": true, \"stream_options\": {\"include_usage\": true}}", n, maxTokens, n);
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/completions"))
                .timeout(TIMEOUT).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        long t0 = System.nanoTime();
        try {
            HttpResponse<java.util.stream.Stream<String>> r = http.send(req, HttpResponse.BodyHandlers.ofLines());
            if (r.statusCode() != 200) {
                r.body().close();
                return Sample.lost("status " + r.statusCode());
            }
            long first = 0;
            long last = 0;
            List<Long> gaps = new ArrayList<>();
            List<Long> times = new ArrayList<>();
            int tokens = -1;
            boolean done = false;
            try (java.util.stream.Stream<String> lines = r.body()) {
                for (Iterator<String> it = lines.iterator(); it.hasNext(); ) {
                    String line = it.next();
                    if (!line.startsWith("data: ")) {
                        continue;
                    }
                    String data = line.substring(6);
                    if (data.equals("[DONE]")) {
                        done = true;
                        break;
                    }
                    JsonNode chunk = JSON.readTree(data);
                    if (chunk.has("usage")) {
                        tokens = chunk.at("/usage/completion_tokens").asInt();
                        continue;
                    }
                    if (!chunk.at("/choices/0/text").asText().isEmpty()) {
                        long now = System.nanoTime();
                        if (first == 0) {
                            first = now - t0;
                        } else {
                            gaps.add(now - last);
                        }
                        last = now;
                        times.add(now);
                    }
                }
            }
            if (!done || tokens < 0) {
                return Sample.lost(done ? "no usage chunk" : "the stream ended without [DONE]");
            }
            return new Sample(true, tokens, first,
                    gaps.stream().mapToLong(Long::longValue).toArray(), t0 + first, last,
                    times.stream().mapToLong(Long::longValue).toArray());
        } catch (Exception e) {
            return Sample.lost(e.toString());
        }
    }

    /** Single-text embeddings: the embedder called directly, then 16 clients through the server. */
    private static void embeddings(int count) throws Exception {
        if (!MiniLm.FP32.available()) {
            System.out.println("embeddings: MiniLM is not on the class path; skipped");
            return;
        }
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            texts.add("Sentence number " + i + " about cats, dogs and the weather.");
        }
        try (Session session = new Session(Device.CPU);
             SentenceEmbedder direct = SentenceEmbedder.of(MiniLm.FP32, session);
             SentenceEmbedder served = SentenceEmbedder.of(MiniLm.FP32, session);
             RlxServer server = RlxServer.builder(ServeOptions.defaults().withPort(0))
                     .embeddings("minilm", served).start();
             HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            for (int i = 0; i < 20; i++) {
                direct.embed(List.of(texts.get(i)));
            }
            long t0 = System.nanoTime();
            for (String t : texts) {
                direct.embed(List.of(t));
            }
            double directRate = count / ((System.nanoTime() - t0) / 1e9);
            AtomicInteger next = new AtomicInteger();
            AtomicInteger end = new AtomicInteger(count);
            AtomicInteger failed = new AtomicInteger();
            Runnable client = () -> {
                for (int i; (i = next.getAndIncrement()) < end.get(); ) {
                    String body = "{\"model\": \"minilm\", \"input\": \"" + texts.get(i) + "\"}";
                    HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                                    + "/v1/embeddings")).timeout(TIMEOUT).header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(body)).build();
                    try {
                        if (http.send(req, HttpResponse.BodyHandlers.ofString()).statusCode() != 200) {
                            failed.incrementAndGet();
                        }
                    } catch (Exception e) {
                        failed.incrementAndGet();
                    }
                }
            };
            // warm-up: one round of the same load, so the batch shapes it makes are compiled before it is timed
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int c = 0; c < 16; c++) {
                    pool.submit(client);
                }
            }
            next.set(0);
            failed.set(0);
            long t1 = System.nanoTime();
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int c = 0; c < 16; c++) {
                    pool.submit(client);
                }
            }
            double servedRate = count / ((System.nanoTime() - t1) / 1e9);
            System.out.printf(Locale.ROOT, "embeddings (1 text per request, %d requests): SentenceEmbedder direct"
                            + " %.1f req/s, server with 16 clients %.1f req/s (%.2fx), failed %d%n", count,
                    directRate, servedRate, servedRate / directRate, failed.get());
        }
    }

    private static long usedHeap() {
        System.gc();
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }

    private static Args parse(String[] argv) {
        String size = "tiny";
        String type = "f32";
        int[] clients = {1, 4, 16, 64};
        int requests = 2;
        int maxTokens = 32;
        int seconds = 60;
        int threads = Runtime.getRuntime().availableProcessors();
        int embeddings = 200;
        for (int i = 0; i < argv.length; i++) {
            String v = i + 1 < argv.length ? argv[i + 1] : null;
            switch (argv[i]) {
                case "--size" -> size = v;
                case "--type" -> type = v;
                case "--clients" -> clients = Arrays.stream(v.split(",")).mapToInt(Integer::parseInt).toArray();
                case "--requests" -> requests = Integer.parseInt(v);
                case "--max-tokens" -> maxTokens = Integer.parseInt(v);
                case "--seconds" -> seconds = Integer.parseInt(v);
                case "--threads" -> threads = Integer.parseInt(v);
                case "--embeddings" -> embeddings = Integer.parseInt(v);
                default -> throw new IllegalArgumentException("serve-load: unknown argument " + argv[i]);
            }
            i++;
        }
        return new Args(size, type, clients, requests, maxTokens, seconds, threads, embeddings);
    }
}
