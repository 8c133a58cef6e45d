package dev.rlx.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The Prometheus text the metrics page writes: cumulative buckets, sum and count, counters and gauges. */
class ServerMetricsTest {
    @Test
    void histogram_writesCumulativeBucketsSumAndCount() {
        Histogram h = new Histogram("x_seconds", "Some latency.", 0.1, 1, 10);
        for (double v : new double[] {0.05, 0.1, 0.5, 3, 30, 0.7}) {
            h.observe(v);
        }
        StringBuilder out = new StringBuilder();
        h.write(out);
        List<String> lines = out.toString().lines().toList();
        assertEquals(34.35, Double.parseDouble(lines.get(6).substring("x_seconds_sum ".length())), 1e-9);
        assertEquals(List.of(
                "# HELP x_seconds Some latency.",
                "# TYPE x_seconds histogram",
                "x_seconds_bucket{le=\"0.1\"} 2", // 0.1 falls in its own bucket (le = less or equal)
                "x_seconds_bucket{le=\"1\"} 4",
                "x_seconds_bucket{le=\"10\"} 5",
                "x_seconds_bucket{le=\"+Inf\"} 6",
                "x_seconds_count 6"), lines.stream().filter(l -> !l.startsWith("x_seconds_sum ")).toList());
        assertEquals(6, h.count());
        assertThrows(IllegalArgumentException.class, () -> new Histogram("bad", "b", 1, 1));
    }

    @Test
    void scrape_hasRequestsByEndpointAndStatus_countersAndGauges() {
        ServerMetrics m = new ServerMetrics();
        m.request("completions", 200);
        m.request("completions", 200);
        m.request("completions", 429);
        m.add("rlx_prompt_tokens_total", 17);
        m.gauge("rlx_kv_blocks_free", "Free blocks.", () -> 12);
        String text = m.scrape();
        List<String> lines = text.lines().toList();
        assertTrue(lines.contains("rlx_http_requests_total{endpoint=\"completions\",status=\"200\"} 2"), text);
        assertTrue(lines.contains("rlx_http_requests_total{endpoint=\"completions\",status=\"429\"} 1"), text);
        assertTrue(lines.contains("rlx_prompt_tokens_total 17"), text);
        assertTrue(lines.contains("rlx_completion_tokens_total 0"), text);
        assertTrue(lines.contains("# TYPE rlx_kv_blocks_free gauge") && lines.contains("rlx_kv_blocks_free 12"),
                text);
        assertEquals(2, m.requests("completions", 200));
        // every sample line is NAME[{labels}] VALUE
        for (String l : lines) {
            assertTrue(l.startsWith("# ") || l.matches("[a-z_]+(\\{[^}]*\\})? [-+0-9.eEInf]+"), l);
        }
    }
}
