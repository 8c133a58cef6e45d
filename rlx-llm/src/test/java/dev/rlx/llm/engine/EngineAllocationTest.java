package dev.rlx.llm.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.llm.kv.KvCacheConfig;
import dev.rlx.llm.kv.KvStorage;
import dev.rlx.llm.kv.PagedKvCache;
import dev.rlx.llm.kv.ScheduledBatch;
import dev.rlx.llm.model.BatchForward;
import java.lang.management.ManagementFactory;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What the step loop itself allocates per generated token, over a model that allocates nothing: the event, its
 * text, the queue node and the scheduler's per-step batch, a few hundred bytes, independent of the vocabulary
 * (32,000 logits here, most beyond the tokenizer's: a padded vocabulary, whose tokens have no text) and of the
 * sequence length.
 */
class EngineAllocationTest {
    /** Logits that cycle through the vocabulary with the position; allocates nothing. */
    static final class QuietModel implements BatchForward {
        final PagedKvCache cache = new PagedKvCache(KvCacheConfig.of(1, 1, 1, 16, 256, KvStorage.F32));

        @Override
        public int vocabSize() {
            return 32_000;
        }

        @Override
        public int contextLength() {
            return 4096;
        }

        @Override
        public PagedKvCache cache() {
            return cache;
        }

        @Override
        public void forward(ScheduledBatch batch, float[] logits) {
            for (int i = 0; i < batch.entries().size(); i++) {
                ScheduledBatch.Entry e = batch.entries().get(i);
                int favourite = 3 + (e.start() + e.count()) * 7 % 1000; // tokenizer tokens and padded ones beyond it
                java.util.Arrays.fill(logits, i * 32_000, (i + 1) * 32_000, 0f);
                logits[i * 32_000 + favourite] = 10f;
            }
        }

        @Override
        public void close() {
            cache.close();
        }
    }

    @Test
    void theLoopAllocatesOnlySmallRecordsPerToken() throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        ModelInfo info = new ModelInfo("quiet", 4096, 32_000, Optional.empty(), LlmEngineTest.EOS);
        try (LlmEngine engine = LlmEngine.of(new QuietModel(), LlmEngineTest.TOK, info, LlmEngineTest.options(1))) {
            int[] prompt = LlmEngineTest.prompt(1, 8);
            GenerationResult w = engine.generate(GenerationRequest.of(prompt, 200)); // warm-up (JIT, buffers)
            String why = "";
            try {
                engine.submit(GenerationRequest.of(prompt, 2)).await();
            } catch (EngineException e) {
                why = e.getMessage();
            }
            assertEquals(FinishReason.LENGTH, w.finish(), why + " after " + w.completionTokens());
            long loop = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals("rlx-llm-engine")).findFirst().orElseThrow().threadId();
            long before = mx.getThreadAllocatedBytes(loop);
            GenerationResult r = engine.generate(GenerationRequest.of(prompt, 1000));
            long perToken = (mx.getThreadAllocatedBytes(loop) - before) / r.completionTokens();
            assertEquals(1000, r.completionTokens());
            System.out.println("engine step loop: " + perToken + " bytes allocated per generated token");
            assertTrue(perToken < 4096, perToken + " bytes per token"); // ~1.6 KB measured, mostly the per-step batch
        }
    }
}
