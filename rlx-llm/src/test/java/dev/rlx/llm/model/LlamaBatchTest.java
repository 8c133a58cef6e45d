package dev.rlx.llm.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.llm.gguf.GgmlType;
import dev.rlx.llm.kv.KvSequence;
import dev.rlx.llm.kv.ScheduledBatch;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sequences batched together (joining at different steps, so prefill chunks run beside decode tokens of other
 * sequences at other positions) get the logits and greedy tokens each gets alone. The token capacities differ
 * between the two runs, so the matrix products see different row counts; the bound is {@link #TOLERANCE}.
 */
class LlamaBatchTest {
    static final double TOLERANCE = 1e-5;

    @Test
    void batchOfSequencesAtDifferentPositionsEqualsEachAlone(@TempDir Path dir) throws Exception {
        Path p = dir.resolve("m.gguf");
        SyntheticLlama.tiny(GgmlType.F32).write(p);
        int steps = 6;
        int[][] prompts;
        int[] joins = {0, 0, 2, 3}; // the step at which each sequence's prompt is run
        try (LlamaModel m = LlamaModel.open(p, LlamaModelTest.exact())) {
            int v = m.vocabSize();
            prompts = new int[][] {LlamaModelTest.prompt(9, v, 1), LlamaModelTest.prompt(4, v, 2),
                LlamaModelTest.prompt(6, v, 3), LlamaModelTest.prompt(1, v, 4)};
            GreedyLoop[] alone = new GreedyLoop[prompts.length];
            for (int i = 0; i < prompts.length; i++) {
                alone[i] = GreedyLoop.run(m, 100 + i, prompts[i], steps, prompts[i].length);
            }
            int n = prompts.length;
            KvSequence[] seqs = new KvSequence[n];
            int[] next = new int[n];
            int[] done = new int[n]; // logits rows seen
            float[][][] got = new float[n][steps + 1][];
            int[][] tokens = new int[n][steps];
            float[] logits = new float[n * v];
            for (int step = 0; ; step++) {
                List<ScheduledBatch.Entry> entries = new ArrayList<>();
                List<Integer> who = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    if (step == joins[i]) {
                        seqs[i] = m.cache().newSequence(i);
                        int start = m.cache().append(seqs[i], prompts[i].length);
                        entries.add(new ScheduledBatch.Entry(i, seqs[i], true, start, prompts[i], true));
                        who.add(i);
                    } else if (step > joins[i] && done[i] <= steps) {
                        int start = m.cache().append(seqs[i], 1);
                        entries.add(new ScheduledBatch.Entry(i, seqs[i], false, start, new int[] {next[i]}, true));
                        who.add(i);
                    }
                }
                if (entries.isEmpty()) {
                    break;
                }
                m.forward(new ScheduledBatch(step, entries, List.of()), logits);
                for (int e = 0; e < who.size(); e++) {
                    int i = who.get(e);
                    float[] row = java.util.Arrays.copyOfRange(logits, e * v, (e + 1) * v);
                    got[i][done[i]] = row;
                    if (done[i] < steps) {
                        next[i] = GreedyLoop.argmax(row);
                        tokens[i][done[i]] = next[i];
                    }
                    done[i]++;
                }
            }
            double worst = 0;
            boolean bitwise = true;
            for (int i = 0; i < n; i++) {
                assertArrayEquals(alone[i].tokens, tokens[i], "sequence " + i);
                for (int s = 0; s <= steps; s++) {
                    for (int j = 0; j < v; j++) {
                        float a = alone[i].logits[s][j];
                        float b = got[i][s][j];
                        worst = Math.max(worst, Math.abs(a - b));
                        bitwise &= Float.floatToRawIntBits(a) == Float.floatToRawIntBits(b);
                    }
                }
                m.cache().free(seqs[i]);
            }
            System.out.printf("batched vs alone: max logit difference %.3g, bitwise %s%n", worst, bitwise);
            assertTrue(worst <= TOLERANCE, "batched logits differ from each alone by " + worst);
        }
    }
}
