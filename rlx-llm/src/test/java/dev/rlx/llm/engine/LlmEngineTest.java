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

    /** Plays {@code text}'s tokens after the prompt and returns the engine's result and events. */
    private static GenerationResult play(String text, List<String> stop, List<TokenEvent> events) throws Exception {
        int[] p = prompt(5, 4);
        int[] script = TOK.encode(text, false, false);
        FakeForward model = new FakeForward(VOCAB, 512, 64, 16, script(p.length, script));
        try (LlmEngine engine = engine(model, options(2))) {
            Generation g = engine.submit(GenerationRequest.of(p, script.length + 5).withStop(stop));
            events.addAll(drain(g));
            return g.await();
        }
    }

    @Test
    void aStopStringAcrossTokensEndsTheTextBeforeItAndIsNeverReleased() throws Exception {
        String text = "Hello world. The quick STOP brown fox";
        assertTrue(TOK.encode("STOP", false, false).length > 1, "the stop string spans tokens");
        List<TokenEvent> events = new ArrayList<>();
        GenerationResult r = play(text, List.of("STOP", "zzz"), events);
        assertEquals("Hello world. The quick ", r.text());
        assertEquals(FinishReason.STOP, r.finish());
        assertEquals(r.text(), concat(events));
        assertTrue(r.tokens().length < TOK.encode(text, false, false).length, "it stops before the script ends");
    }

    @Test
    void aPossibleStopPrefixThatDoesNotCompleteIsReleased() throws Exception {
        String text = "Hello world. The quick brown fox";
        List<TokenEvent> events = new ArrayList<>();
        GenerationResult r = play(text, List.of("world!", "fox jumps"), events);
        assertEquals(text, r.text());
        assertEquals(FinishReason.STOP, r.finish(), "ended by EOS");
        assertEquals(r.text(), concat(events));
        assertEquals(EOS, r.tokens()[r.tokens().length - 1]);
    }

    @Test
    void textStreamsAsWholeUtf8CharactersOnly() throws Exception {
        String text = "ok 🙂🚀 日本語";
        int[] ids = TOK.encode(text, false, false);
        List<TokenEvent> events = new ArrayList<>();
        GenerationResult r = play(text, List.of(), events);
        assertEquals(text, r.text());
        assertEquals(text, concat(events));
        assertTrue(ids.length > text.codePointCount(0, text.length()) - 2, "the emoji fall back to byte tokens");
        int empty = 0;
        for (TokenEvent e : events) {
            String t = e.text();
            assertFalse(t.contains("\uFFFD"), "no replacement character in " + t);
            if (!t.isEmpty()) {
                assertFalse(Character.isLowSurrogate(t.charAt(0)) || Character.isHighSurrogate(t.charAt(t.length() - 1)),
                        "no split surrogate pair in '" + t + "'");
            }
            empty += t.isEmpty() ? 1 : 0;
        }
        assertTrue(empty >= 3, "bytes of a character are held back (" + empty + " empty events)");
    }

    @Test
    void stopTokensEndTheGenerationWithoutTheirText() throws Exception {
        int[] p = prompt(9, 3);
        String text = "abc def ghi";
        int[] script = TOK.encode(text, false, false);
        FakeForward model = new FakeForward(VOCAB, 512, 64, 16, script(p.length, script));
        try (LlmEngine engine = engine(model, options(2))) {
            GenerationResult r = engine.generate(GenerationRequest.of(p, 20).withStopTokens(Set.of(script[2])));
            assertEquals(FinishReason.STOP, r.finish());
            assertArrayEquals(Arrays.copyOf(script, 3), r.tokens());
            assertEquals(TOK.decode(Arrays.copyOf(script, 2)), r.text());
        }
    }

    private static List<GenerationRequest> sixteen() {
        List<GenerationRequest> rs = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            SampleOpts s = i % 2 == 0 ? SampleOpts.greedy()
                    : SampleOpts.defaults().toBuilder().temperature(1.2f).seed(100 + i).build();
            rs.add(GenerationRequest.of(prompt(20 + i, 5 + 3 * i), 12 + i).withSampling(s));
        }
        return rs;
    }

    private static void sixteenTogetherEqualEachAlone(int blocks, boolean expectPreemption) throws Exception {
        List<GenerationRequest> rs = sixteen();
        List<int[]> alone = new ArrayList<>();
        try (LlmEngine engine = engine(new FakeForward(VOCAB, 512, 256, 4, null), options(16))) {
            for (GenerationRequest r : rs) {
                alone.add(engine.generate(r).tokens());
            }
        }
        FakeForward model = new FakeForward(VOCAB, 512, blocks, 4, null);
        try (LlmEngine engine = engine(model, options(16))) {
            List<Generation> gs = new ArrayList<>();
            for (GenerationRequest r : rs) {
                gs.add(engine.submit(r));
            }
            long minimum = 0;
            for (int i = 0; i < gs.size(); i++) {
                GenerationResult r = gs.get(i).await();
                assertArrayEquals(alone.get(i), r.tokens(), "request " + i);
                minimum += r.promptTokens() + r.completionTokens() - 1;
            }
            EngineStats st = engine.stats();
            assertEquals(st.kvBlocksTotal(), st.kvBlocksFree());
            assertEquals(0, st.running());
            assertEquals(expectPreemption, model.tokensComputed > minimum,
                    "tokens computed " + model.tokensComputed + " vs " + minimum + " without recompute");
        }
    }

    @Test
    void sixteenConcurrentSequencesGiveTheTokensEachGivesAlone() throws Exception {
        sixteenTogetherEqualEachAlone(256, false);
    }

    @Test
    void sixteenConcurrentSequencesUnderPreemptionGiveTheSameTokens() throws Exception {
        sixteenTogetherEqualEachAlone(24, true); // 96 token slots for ~16 x 40: the scheduler must preempt
    }

    @Test
    void cancelEndsTheRequestAndFreesItsBlocks() throws Exception {
        FakeForward model = new FakeForward(VOCAB, 100_000, 8000, 16, h -> 5);
        try (LlmEngine engine = engine(model, options(4))) {
            Generation g = engine.submit(GenerationRequest.of(prompt(2, 40), 0));
            assertEquals(5, g.next().token());
            g.cancel();
            GenerationResult r = g.await();
            assertEquals(FinishReason.CANCELLED, r.finish());
            EngineStats st = engine.stats();
            assertEquals(st.kvBlocksTotal(), st.kvBlocksFree());
            assertEquals(0, st.running() + st.waiting());
            assertEquals(r.completionTokens(), drain(g).size() + 1, "every token gave one event");
            assertTrue(engine.generate(GenerationRequest.of(prompt(3, 4), 3)).tokens().length > 0, "still serving");
        }
    }

    @Test
    void aFullQueueRefusesWithQueueFull() throws Exception {
        Semaphore gate = new Semaphore(0);
        FakeForward model = new FakeForward(VOCAB, 512, 64, 16, null, gate);
        try (LlmEngine engine = engine(model, options(1).withQueueCapacity(2))) {
            Generation a = engine.submit(GenerationRequest.of(prompt(1, 4), 4));
            model.entered.await(); // a runs (blocked in its first step): it left the queue
            Generation b = engine.submit(GenerationRequest.of(prompt(2, 4), 4));
            Generation c = engine.submit(GenerationRequest.of(prompt(3, 4), 4));
            EngineException e = assertThrows(EngineException.class,
                    () -> engine.submit(GenerationRequest.of(prompt(4, 4), 4)));
            assertEquals(EngineException.Reason.QUEUE_FULL, e.reason());
            assertEquals(2, engine.stats().waiting());
            gate.release(1_000);
            for (Generation g : List.of(a, b, c)) {
                assertNotEquals(FinishReason.ERROR, g.await().finish());
            }
        }
    }

    @Test
    void requestsBeyondTheContextOrTheCacheAreRefusedBeforeRunning() throws Exception {
        FakeForward model = new FakeForward(VOCAB, 64, 3, 16, null);
        try (LlmEngine engine = engine(model, options(2))) {
            for (GenerationRequest r : List.of(GenerationRequest.of(prompt(1, 64), 1),
                    GenerationRequest.of(prompt(1, 40), 25), GenerationRequest.of(prompt(1, 40), 10))) {
                EngineException e = assertThrows(EngineException.class, () -> engine.submit(r));
                assertEquals(EngineException.Reason.CONTEXT_EXCEEDED, e.reason(), e.getMessage());
            }
            EngineException bad = assertThrows(EngineException.class,
                    () -> engine.submit(GenerationRequest.of(new int[] {1, VOCAB}, 1)));
            assertEquals(EngineException.Reason.INVALID_REQUEST, bad.reason());
            assertEquals(0, engine.stats().steps(), "nothing ran");
            assertEquals(FinishReason.STOP.ordinal() <= 1, engine.generate(GenerationRequest.of(prompt(1, 30), 10))
                    .finish().ordinal() <= 1, "a request that fits runs");
        }
        assertThrows(EngineException.class, () -> GenerationRequest.of(new int[0], 1));
        assertThrows(EngineException.class, () -> GenerationRequest.of(new int[] {1}, 1).withStop(List.of("")));
    }

    @Test
    void aFailingForwardEndsItsRequestsWithErrorAndTheEngineGoesOn() throws Exception {
        FakeForward model = new FakeForward(VOCAB, 512, 64, 16, null);
        model.failOnToken = 77;
        try (LlmEngine engine = engine(model, options(4))) {
            GenerationResult bad = engine.generate(GenerationRequest.of(new int[] {5, 77, 9}, 5));
            assertEquals(FinishReason.ERROR, bad.finish());
            EngineStats st = engine.stats();
            assertEquals(st.kvBlocksTotal(), st.kvBlocksFree());
            model.failOnToken = -1;
            GenerationResult ok = engine.generate(GenerationRequest.of(new int[] {5, 78, 9}, 5));
            assertNotEquals(FinishReason.ERROR, ok.finish());
        }
    }

    @Test
    void closeCancelsWhatRunsAndRefusesNewRequests() throws Exception {
        FakeForward model = new FakeForward(VOCAB, 100_000, 8000, 16, h -> 5);
        LlmEngine engine = engine(model, options(4));
        Generation g = engine.submit(GenerationRequest.of(prompt(2, 8), 0));
        g.next();
        engine.close();
        assertEquals(FinishReason.CANCELLED, g.await().finish());
        assertTrue(model.closed, "the model is closed with the engine");
        EngineException e = assertThrows(EngineException.class,
                () -> engine.submit(GenerationRequest.of(prompt(2, 8), 2)));
        assertEquals(EngineException.Reason.CLOSED, e.reason());
        engine.close(); // twice is fine
    }
}
