package dev.rlx.serve;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;

/**
 * What {@code GET /metrics} shows, in the Prometheus text format: requests by endpoint and status, tokens in
 * and out, embedding inputs and batch sizes, time to first token and inter-token latency, and gauges read at
 * scrape time (queue length, KV blocks used and free, the engine's last batch).
 */
public final class ServerMetrics {
    private record Gauge(String name, String help, DoubleSupplier value) {}

    private final Map<String, LongAdder> requests = new ConcurrentSkipListMap<>();
    private final Map<String, LongAdder> counters = new ConcurrentHashMap<>();
    private final List<Gauge> gauges = new CopyOnWriteArrayList<>();

    final Histogram timeToFirstToken = Histogram.seconds("rlx_time_to_first_token_seconds",
            "Time from a completion request's arrival to its first generated token.");
    final Histogram interTokenLatency = Histogram.seconds("rlx_inter_token_latency_seconds",
            "Time between consecutive tokens of a completion, as the server sees them.");
    final Histogram embeddingBatch = new Histogram("rlx_embedding_batch_inputs",
            "Texts per encoder run of the embeddings batcher.", 1, 2, 4, 8, 16, 32, 64, 128, 256);
    final Histogram decodeBatch = new Histogram("rlx_token_batch_sequences",
            "Sequences in the engine step each streamed token came from (the engine's last step when it arrived).",
            1, 2, 4, 8, 16, 32, 64, 128, 256);
    final Histogram requestDuration = Histogram.seconds("rlx_request_duration_seconds",
            "Time from a request's arrival to its last byte.");

    private static final String[][] COUNTERS = {
        {"rlx_prompt_tokens_total", "Prompt tokens of completion requests."},
        {"rlx_completion_tokens_total", "Tokens generated for completion requests."},
        {"rlx_embedding_inputs_total", "Texts embedded."},
        {"rlx_embedding_tokens_total", "Tokens of the texts embedded ([CLS] and [SEP] included)."},
        {"rlx_cancelled_generations_total", "Generations cancelled because the client went away or the server stopped."},
    };

    /** Counts one finished request of {@code endpoint} answered with {@code status}. */
    public void request(String endpoint, int status) {
        requests.computeIfAbsent("endpoint=\"" + endpoint + "\",status=\"" + status + "\"", k -> new LongAdder()).increment();
    }

    /** The count of {@code endpoint}'s requests answered with {@code status} so far. */
    public long requests(String endpoint, int status) {
        LongAdder a = requests.get("endpoint=\"" + endpoint + "\",status=\"" + status + "\"");
        return a == null ? 0 : a.sum();
    }

    void add(String counter, long n) {
        counters.computeIfAbsent(counter, k -> new LongAdder()).add(n);
    }

    long counter(String counter) {
        LongAdder a = counters.get(counter);
        return a == null ? 0 : a.sum();
    }

    /** A value read at each scrape, e.g. a queue length. */
    void gauge(String name, String help, DoubleSupplier value) {
        gauges.add(new Gauge(name, help, value));
    }

    /** The exposition text. */
    public String scrape() {
        StringBuilder out = new StringBuilder(4096);
        out.append("# HELP rlx_http_requests_total Requests answered, by endpoint and HTTP status.\n");
        out.append("# TYPE rlx_http_requests_total counter\n");
        requests.forEach((labels, n) -> out.append("rlx_http_requests_total{").append(labels).append("} ").append(n.sum()).append('\n'));
        for (String[] c : COUNTERS) {
            out.append("# HELP ").append(c[0]).append(' ').append(c[1]).append('\n');
            out.append("# TYPE ").append(c[0]).append(" counter\n");
            out.append(c[0]).append(' ').append(counter(c[0])).append('\n');
        }
        for (Gauge g : gauges) {
            out.append("# HELP ").append(g.name()).append(' ').append(g.help()).append('\n');
            out.append("# TYPE ").append(g.name()).append(" gauge\n");
            out.append(g.name()).append(' ').append(Histogram.format(g.value().getAsDouble())).append('\n');
        }
        timeToFirstToken.write(out);
        interTokenLatency.write(out);
        embeddingBatch.write(out);
        decodeBatch.write(out);
        requestDuration.write(out);
        return out.toString();
    }
}
