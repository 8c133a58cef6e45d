package dev.rlx.serve;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rlx.onnx.embed.MiniLm;
import dev.rlx.onnx.embed.SentenceEmbedder;
import dev.rlx.onnx.text.Encoding;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Requests that queue while the encoder runs are joined into one run, and each gets its own rows back. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EmbeddingBatcherTest {
    @Test
    void requestsQueuedDuringARun_joinIntoOneRun() throws Exception {
        try (Session session = new Session(Device.CPU);
             SentenceEmbedder embedder = SentenceEmbedder.of(MiniLm.FP32, session)) {
            ServerMetrics metrics = new ServerMetrics();
            List<String> big = new ArrayList<>();
            List<String> singles = List.of("one", "two words", "three small words", "a cat", "a dog", "rain",
                    "sun and moon", "the end");
            float[][] bigRows;
            List<float[][]> singleRows = new ArrayList<>();
            try (EmbeddingBatcher b = new EmbeddingBatcher(embedder, 32, 1024, metrics)) {
                for (int i = 0; i < 32; i++) {
                    big.add("A longer sentence, number " + i + ", that keeps the encoder busy for a while.");
                }
                CompletableFuture<float[][]> first = b.submit(b.encode(big));
                List<CompletableFuture<float[][]>> rest = new ArrayList<>();
                for (String s : singles) {
                    List<Encoding> e = b.encode(List.of(s));
                    rest.add(b.submit(e));
                }
                bigRows = first.get(30, TimeUnit.SECONDS);
                for (CompletableFuture<float[][]> f : rest) {
                    singleRows.add(f.get(30, TimeUnit.SECONDS));
                }
                // the 32 texts fill one run; the 8 single-text requests, queued meanwhile, share the next
                assertEquals(2, metrics.embeddingBatch.count());
            }
            // the batcher's worker has stopped: the embedder is free for the direct reference runs
            float[][] expectedBig = embedder.embed(big);
            for (int i = 0; i < big.size(); i++) {
                assertArrayEquals(expectedBig[i], bigRows[i], 1e-5f, "big[" + i + "]");
            }
            float[][] expectedSingles = embedder.embed(singles); // padding changes float rounding only
            for (int i = 0; i < singles.size(); i++) {
                assertEquals(1, singleRows.get(i).length);
                assertArrayEquals(expectedSingles[i], singleRows.get(i)[0], 1e-5f, singles.get(i));
            }
        }
    }
}
