package dev.rlx.llm.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.limits.Limits;
import dev.rlx.ir.quant.BlockFormat;
import dev.rlx.llm.gguf.GgufFile;
import dev.rlx.llm.gguf.GgufWriter;
import dev.rlx.llm.sample.SampleOpts;
import dev.rlx.llm.tokenizer.SyntheticVocab;
import dev.rlx.llm.tokenizer.Tokenizer;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Test;

/**
 * The engine over {@link FakeForward} (logits a pure function of the cached history) and a generated
 * SentencePiece vocabulary: greedy tokens equal a plain loop over the same function, seeds repeat, stop strings
 * and tokens, UTF-8 held back, cancel, queue and context limits, model errors, and 16 concurrent sequences (also
 * under preemption) giving each one's tokens alone.
 */
class LlmEngineTest {
    static final Tokenizer TOK = spm();
    static final int VOCAB = TOK.vocabulary().size();
    static final int EOS = TOK.vocabulary().eos();

    static Tokenizer spm() {
        GgufWriter w = new GgufWriter();
        SyntheticVocab.writeSpm(w, SyntheticVocab.DEFAULT_CORPUS, 600);
        GgufFile f = GgufFile.parse(MemorySegment.ofArray(w.toBytes()), "vocab.gguf", Limits.defaults());
        return Tokenizer.fromGguf(f.metadata());
    }

    static EngineOptions options(int maxSequences) {
        return EngineOptions.defaults().withThreads(1).withKvStorage(BlockFormat.F32).withMaxSequences(maxSequences)
                .withMaxBatchTokens(64).withQueueCapacity(64);
    }

    static LlmEngine engine(FakeForward model, EngineOptions o) {
        ModelInfo info = new ModelInfo("fake", model.contextLength(), VOCAB, Optional.empty(), EOS);
        return LlmEngine.of(model, TOK, info, o);
    }

    static int[] prompt(int seed, int n) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = 3 + Math.floorMod(seed * 131 + i * 17, VOCAB - 3);
        }
        return p;
    }

    /** A favourite-token function that plays {@code script} after a prompt of {@code promptLength}, then EOS. */
    static ToIntFunction<int[]> script(int promptLength, int[] script) {
        return h -> {
            int k = h.length - promptLength;
            return k < 0 ? -1 : k < script.length ? script[k] : EOS;
        };
    }

    static List<TokenEvent> drain(Generation g) throws InterruptedException {
        List<TokenEvent> events = new ArrayList<>();
        for (TokenEvent e; (e = g.next()) != null; ) {
            events.add(e);
        }
        assertNull(g.next(), "the stream stays ended");
        return events;
    }

    static String concat(List<TokenEvent> events) {
        StringBuilder sb = new StringBuilder();
        events.forEach(e -> sb.append(e.text()));
        return sb.toString();
    }

    @Test
    void greedyTokensEqualAPlainLoopOverTheModelFunction() throws Exception {
        FakeForward model = new FakeForward(VOCAB, 512, 64, 16, null);
        int[] p = prompt(7, 11);
        // the reference: argmax of the model function over the growing history, stopping at EOS or 40 tokens
        List<Integer> expected = new ArrayList<>();
        int[] h = p.clone();
        float[] row = new float[VOCAB];
        while (expected.size() < 40) {
            model.logitsOf(h, row, 0);
            int best = 0;
            for (int t = 1; t < VOCAB; t++) {
                best = row[t] > row[best] ? t : best;
            }
            expected.add(best);
            if (best == EOS) {
                break;
            }
            h = Arrays.copyOf(h, h.length + 1);
            h[h.length - 1] = best;
        }
        try (LlmEngine engine = engine(model, options(4))) {
            Generation g = engine.submit(GenerationRequest.of(p, 40));
            List<TokenEvent> events = drain(g);
            GenerationResult r = g.await();
            assertArrayEquals(expected.stream().mapToInt(Integer::intValue).toArray(), r.tokens());
            assertEquals(r.tokens().length, events.size());
            assertEquals(r.completionTokens(), events.size());
            assertEquals(11, r.promptTokens());
            assertEquals(concat(events), r.text());
            int[] textTokens = expected.getLast() == EOS ? Arrays.copyOf(r.tokens(), r.tokens().length - 1) : r.tokens();
            assertEquals(TOK.decode(textTokens), r.text());
            assertEquals(expected.getLast() == EOS ? FinishReason.STOP : FinishReason.LENGTH, r.finish());
            assertTrue(r.totalNanos() >= r.firstTokenNanos() && r.firstTokenNanos() > 0);
        }
    }

    @Test
    void logprobsAreTheLogSoftmaxOfTheRawLogits() throws Exception {
        FakeForward model = new FakeForward(VOCAB, 512, 64, 16, null);
        int[] p = prompt(3, 5);
        try (LlmEngine engine = engine(model, options(2))) {
            Generation g = engine.submit(GenerationRequest.of(p, 3).withTopLogprobs(5));
            TokenEvent e = g.next();
            float[] row = new float[VOCAB];
            model.logitsOf(p, row, 0);
            double max = Double.NEGATIVE_INFINITY;
            for (float x : row) {
                max = Math.max(max, x);
            }
            double sum = 0;
            for (float x : row) {
                sum += Math.exp(x - max);
            }
            double lse = max + Math.log(sum);
            assertEquals(row[e.token()] - lse, e.logprob(), 1e-5);
            assertEquals(5, e.top().size());
            assertEquals(e.token(), e.top().getFirst().token(), "greedy picks the most likely token");
            Integer[] order = new Integer[VOCAB];
            for (int i = 0; i < VOCAB; i++) {
                order[i] = i;
            }
            Arrays.sort(order, (a, b) -> row[a] != row[b] ? Float.compare(row[b], row[a]) : Integer.compare(a, b));
            for (int j = 0; j < 5; j++) {
                assertEquals(order[j], e.top().get(j).token());
                assertEquals(row[order[j]] - lse, e.top().get(j).logprob(), 1e-5);
            }
            g.await();
        }
    }

    @Test
    void theSameSeedGivesTheSameTokensAndAnotherSeedOthers() throws Exception {
        FakeForward model = new FakeForward(VOCAB, 512, 64, 16, null);
        SampleOpts s = SampleOpts.defaults().toBuilder().temperature(1.5f).topK(0).topP(1f).minP(0f).seed(42).build();
        GenerationRequest r = GenerationRequest.of(prompt(1, 8), 32).withSampling(s).withStopTokens(Set.of());
        try (LlmEngine engine = engine(model, options(4))) {
            int[] a = engine.generate(r).tokens();
            int[] b = engine.generate(r).tokens();
            int[] c = engine.generate(r.withSampling(s.toBuilder().seed(43).build())).tokens();
            assertArrayEquals(a, b);
            assertFalse(Arrays.equals(a, c), "seed 43 should sample differently from seed 42");
        }
    }
}
