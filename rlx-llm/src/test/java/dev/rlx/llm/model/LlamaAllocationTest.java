package dev.rlx.llm.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rlx.llm.gguf.GgmlType;
import dev.rlx.llm.kv.KvSequence;
import dev.rlx.llm.kv.ScheduledBatch;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * After warm-up (the shapes compiled, the block tables sized) a decode step allocates nothing on the calling
 * thread: 32 steps of two sequences decoding side by side are measured with
 * {@code ThreadMXBean.getThreadAllocatedBytes}. The batches are built before measuring (the engine's, not the
 * model's, allocation).
 */
@Tag("allocation")
class LlamaAllocationTest {
    @Test
    void decodeStepsAllocateNothingAfterWarmUp(@TempDir Path dir) throws Exception {
        Path p = dir.resolve("m.gguf");
        SyntheticLlama.tiny(GgmlType.F16).write(p);
        int steps = 32;
        int perRound = 400; // rounds of fresh sequences: the tiny model's context is 512
        int rounds = 8;     // C2 must have compiled the CPU kernels: interpreted Vector API code boxes vectors
        try (LlamaModel m = LlamaModel.open(p, LlamaModel.Options.defaults().withThreads(2).withMaxSequences(2)
                .withContextLength(512))) {
            long allocated = 0;
            for (int round = 0; round < rounds; round++) {
                allocated = round(m, perRound, round == rounds - 1 ? perRound - steps : perRound);
            }
            System.out.printf("%d decode steps of 2 sequences allocated %d bytes%n", steps, allocated);
            assertEquals(0, allocated, "bytes allocated by " + steps + " decode steps");
        }
    }

    /** A prefill and {@code n} decode steps of two fresh sequences; the bytes allocated from step {@code from} on. */
    private static long round(LlamaModel m, int n, int from) {
        int v = m.vocabSize();
        int[] prompt = LlamaModelTest.prompt(7, v, 9);
        KvSequence a = m.cache().newSequence(1, prompt.length + n + 1);
        KvSequence b = m.cache().newSequence(2, prompt.length + n + 1);
        float[] logits = new float[2 * v];
        int start = m.cache().append(a, prompt.length);
        m.cache().append(b, prompt.length);
        m.forward(new ScheduledBatch(0, List.of(new ScheduledBatch.Entry(1, a, true, start, prompt, true),
                new ScheduledBatch.Entry(2, b, true, start, prompt, true)), List.of()), logits);
        int[][] ta = new int[n][1];
        int[][] tb = new int[n][1];
        ScheduledBatch[] batches = new ScheduledBatch[n];
        for (int i = 0; i < n; i++) {
            int pos = prompt.length + i;
            batches[i] = new ScheduledBatch(i + 1, List.of(new ScheduledBatch.Entry(1, a, false, pos, ta[i], true),
                    new ScheduledBatch.Entry(2, b, false, pos, tb[i], true)), List.of());
        }
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long me = Thread.currentThread().threadId();
        long before = 0;
        for (int i = 0; i < n; i++) {
            if (i == from) {
                before = mx.getThreadAllocatedBytes(me);
            }
            ta[i][0] = argmax(logits, 0, v);
            tb[i][0] = argmax(logits, v, v);
            m.cache().append(a, 1);
            m.cache().append(b, 1);
            m.forward(batches[i], logits);
        }
        long allocated = mx.getThreadAllocatedBytes(me) - before;
        m.cache().free(a);
        m.cache().free(b);
        return allocated;
    }

    private static int argmax(float[] x, int off, int n) {
        int best = 0;
        for (int i = 1; i < n; i++) {
            if (x[off + i] > x[off + best]) {
                best = i;
            }
        }
        return best;
    }
}
