package dev.rlx.llm.sample;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Tag;

/** SamplerChain and SampleOpts: llama.cpp's chain order, the classic fast path, determinism, no allocation. */
class SamplerChainTest {

    private static float[][] logitRows(int rows, int n, long seed) {
        Random r = new Random(seed);
        float[][] out = new float[rows][n];
        for (float[] row : out) {
            for (int i = 0; i < n; i++) {
                row[i] = (float) (r.nextGaussian() * 2.5);
            }
        }
        return out;
    }

    private static List<String> names(SamplerChain c) {
        return c.samplers().stream().map(Sampler::name).toList();
    }

    // ---------------------------------------------------------------- chain order

    @Test
    void intoChain_defaultsFollowLlamaCppOrderWithDisabledStagesLeftOut() {
        SamplerChain c = SampleOpts.defaults().intoChain();
        assertEquals(List.of("top-k", "top-p", "min-p", "temp", "dist"), names(c));
        assertTrue(c.usesFastPath(), "it starts with top-k");
        assertFalse(SampleOpts.defaults().isClassic(), "min-p 0.05 is on by default");
    }

    @Test
    void intoChain_everyStageInLlamaCppOrder() {
        SampleOpts o = SampleOpts.defaults().toBuilder().repeatPenalty(1.1f).dryMultiplier(0.8f).topNSigma(2f)
                .typicalP(0.9f).xtcProbability(0.5f).dynatempRange(0.2f).build();
        assertEquals(List.of("penalties", "dry", "top-n-sigma", "top-k", "typical", "top-p", "min-p", "xtc",
                "temp-ext", "dist"), names(o.intoChain()));
    }

    @Test
    void intoChain_mirostatReplacesTheTruncationSamplers() {
        SampleOpts o = SampleOpts.defaults().toBuilder().mirostat(1).repeatPenalty(1.3f).build();
        assertEquals(List.of("temp", "mirostat"), names(o.intoChain()));
        assertEquals(List.of("temp", "mirostat-v2"), names(o.toBuilder().mirostat(2).build().intoChain()));
    }

    @Test
    void isClassic_onlyTopKTopPAndTemperature() {
        SampleOpts classic = SampleOpts.defaults().toBuilder().minP(0f).build();
        assertTrue(classic.isClassic());
        assertTrue(classic.intoChain().usesFastPath());
        assertFalse(classic.intoChain(false).usesFastPath());
        for (SampleOpts o : List.of(classic.toBuilder().minP(0.1f).build(), classic.toBuilder().typicalP(0.9f).build(),
                classic.toBuilder().topNSigma(1f).build(), classic.toBuilder().xtcProbability(0.1f).build(),
                classic.toBuilder().dryMultiplier(1f).build(), classic.toBuilder().repeatPenalty(1.2f).build(),
                classic.toBuilder().presencePenalty(0.1f).build(), classic.toBuilder().dynatempRange(0.1f).build(),
                classic.toBuilder().mirostat(2).build())) {
            assertFalse(o.isClassic(), o.toString());
        }
        assertTrue(classic.toBuilder().xtcProbability(0.5f).xtcThreshold(0.6f).build().isClassic(),
                "XTC with threshold > 0.5 is a no-op");
    }

    // ---------------------------------------------------------------- the fast path

    /** Classic options and the default ones: fast path or not, the tokens are the same. */
    static Stream<Arguments> classicOptions() {
        SampleOpts base = SampleOpts.defaults().toBuilder().minP(0f).seed(99).build();
        return Stream.of(
                Arguments.of(base),                                                  // k 40, p 0.95, T 0.8
                Arguments.of(base.toBuilder().topK(0).topP(0.9f).temperature(0.7f).build()),
                Arguments.of(base.toBuilder().topK(0).topP(0.999f).build()),         // past top-p's histogram bound
                Arguments.of(base.toBuilder().topK(0).topP(1f).temperature(1.3f).build()),
                Arguments.of(base.toBuilder().topK(5000).topP(0.5f).minKeep(3).build()),
                Arguments.of(base.toBuilder().topK(3).topP(1f).temperature(0f).build()),
                Arguments.of(SampleOpts.defaults().toBuilder().seed(7).build()));
    }

    @ParameterizedTest
    @MethodSource("classicOptions")
    void fastPath_givesTheSameTokensAsTheGeneralChain(SampleOpts o) {
        SamplerChain fast = o.intoChain();
        SamplerChain general = o.intoChain(false);
        assertEquals(o.topK() > 0, fast.usesFastPath());
        assertFalse(general.usesFastPath());
        for (float[] logits : logitRows(40, 30_000, 5)) {
            assertEquals(general.sample(logits), fast.sample(logits));
        }
    }

    // ---------------------------------------------------------------- determinism and state

    @Test
    void sample_sameSeedSameTokensAndResetRestarts() {
        SampleOpts o = SampleOpts.defaults().toBuilder().seed(1234).repeatPenalty(1.2f).build();
        float[][] rows = logitRows(30, 5000, 6);
        SamplerChain a = o.intoChain();
        int[] first = new int[rows.length];
        for (int i = 0; i < rows.length; i++) {
            first[i] = a.sample(rows[i]);
        }
        SamplerChain b = o.intoChain();
        a.reset();
        for (int i = 0; i < rows.length; i++) {
            assertEquals(first[i], b.sample(rows[i]), "another chain, step " + i);
            assertEquals(first[i], a.sample(rows[i]), "after reset, step " + i);
        }
    }

    @Test
    void sample_acceptsTheTokenIntoHistorySamplers() {
        // A huge repetition penalty: once token 1 is sampled it cannot win again within the window.
        SamplerChain c = SamplerChain.builder().add(Samplers.penalties(4, 1e6f, 0f, 0f)).add(Samplers.greedy()).build();
        float[] logits = {1f, 3f, 2f};
        assertEquals(1, c.sample(logits));
        assertEquals(2, c.sample(logits));
        assertEquals(0, c.sample(logits));
    }

    @Test
    void sample_withoutASelectingSampler_throws() {
        SamplerChain c = SamplerChain.builder().add(Samplers.topK(2)).build();
        SamplingException e = assertThrows(SamplingException.class, () -> c.sample(new float[] {1f, 2f}));
        assertTrue(e.getMessage().contains("dist"), e.getMessage());
    }

    @Test
    void greedyOpts_alwaysPickTheArgmax() {
        SampleOpts g = SampleOpts.greedy();
        assertTrue(g.isGreedy());
        SamplerChain c = g.intoChain();
        for (float[] logits : logitRows(20, 1000, 7)) {
            int best = 0;
            for (int i = 1; i < logits.length; i++) {
                best = logits[i] > logits[best] ? i : best;
            }
            assertEquals(best, c.sample(logits));
        }
    }

    @Test
    void sampleOpts_badFieldsRejectedByName() {
        assertThrows(SamplingException.class, () -> SampleOpts.defaults().toBuilder().mirostat(3).build());
        SamplingException e = assertThrows(SamplingException.class,
                () -> SampleOpts.defaults().toBuilder().topP(Float.NaN).build());
        assertTrue(e.getMessage().contains("topP"), e.getMessage());
        e = assertThrows(SamplingException.class, () -> SampleOpts.defaults().toBuilder().seed(-5).build());
        assertTrue(e.getMessage().contains("seed"), e.getMessage());
        assertThrows(SamplingException.class,
                () -> SampleOpts.defaults().toBuilder().drySequenceBreakers(List.of(List.of())).build());
    }

    // ---------------------------------------------------------------- allocation

    @Tag("allocation")
    @Test
    void sample_allocatesNothingAfterWarmUp() {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        float[][] rows = logitRows(8, 32_768, 8);
        SampleOpts everything = SampleOpts.defaults().toBuilder().seed(5).repeatPenalty(1.1f).dryMultiplier(0.8f)
                .topNSigma(3f).typicalP(0.95f).xtcProbability(0.5f).dynatempRange(0.3f).build();
        for (SampleOpts o : List.of(SampleOpts.defaults().toBuilder().seed(1).build(), everything,
                SampleOpts.defaults().toBuilder().seed(2).minP(0f).build(),
                SampleOpts.defaults().toBuilder().seed(3).minP(0f).topK(0).build(),
                SampleOpts.defaults().toBuilder().seed(4).mirostat(2).build())) {
            SamplerChain c = o.intoChain();
            boolean clean = false;
            for (int round = 0; round < 30 && !clean; round++) { // early rounds warm the JIT and grow scratch
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 50; i++) {
                    c.sample(rows[i % rows.length]);
                }
                clean = threads.getCurrentThreadAllocatedBytes() == before;
            }
            assertTrue(clean, c + " allocated in every round");
        }
    }

    @Test
    void candidates_reusedAcrossVocabularySizes() {
        SamplerChain c = SampleOpts.defaults().toBuilder().seed(3).build().intoChain();
        int small = c.sample(new float[] {0f, 5f, 0f});
        assertEquals(1, small, "a dominant logit wins");
        int[] tokens = new int[2];
        tokens[0] = c.sample(logitRows(1, 50_000, 9)[0]);
        tokens[1] = c.sample(new float[] {9f, 0f});
        assertTrue(tokens[0] >= 0 && tokens[0] < 50_000);
        assertArrayEquals(new int[] {tokens[0], 0}, tokens);
    }
}
