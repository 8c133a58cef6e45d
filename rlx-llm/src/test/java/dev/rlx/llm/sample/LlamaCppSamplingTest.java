package dev.rlx.llm.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The expectations of llama.cpp's {@code tests/test-sampling.cpp} (current upstream), re-expressed: a
 * candidate list with logits {@code ln p} goes through the sampler under test and, for most, {@code dist(0)};
 * the resulting probabilities must match to 1e-5, in order (so the order a sampler leaves is checked too).
 */
class LlamaCppSamplingTest {
    private static final float[] FOUR = {0.1f, 0.2f, 0.3f, 0.4f};

    /** Candidates with logits {@code logf(p)}, as llama.cpp's {@code sampler_tester}. */
    static Candidates tester(float... probs) {
        float[] logits = new float[probs.length];
        for (int i = 0; i < probs.length; i++) {
            logits[i] = (float) Math.log(probs[i]);
        }
        return Candidates.fromLogits(logits);
    }

    static void check(Candidates c, float... expected) {
        assertEquals(expected.length, c.size(), "candidates left");
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], c.p(i), 1e-5, "p of candidate " + i + " (token " + c.id(i) + ")");
        }
    }

    static void applyThenDist(Candidates c, Sampler s) {
        s.apply(c);
        Samplers.dist(0).apply(c);
    }

    // ---------------------------------------------------------------- temperature

    @Test
    void temperature_oneKeepsTheDistributionAndZeroIsGreedy() {
        Candidates c = tester(FOUR);
        applyThenDist(c, Samplers.temperature(1f));
        check(c, 0.1f, 0.2f, 0.3f, 0.4f);
        c = tester(FOUR);
        applyThenDist(c, Samplers.temperature(0f));
        check(c, 0f, 0f, 0f, 1f);
    }

    @Test
    void temperatureExt_withoutDeltaIsPlainTemperature() {
        Candidates c = tester(FOUR);
        applyThenDist(c, Samplers.temperatureExt(1f, 0f, 1f));
        check(c, 0.1f, 0.2f, 0.3f, 0.4f);
        c = tester(FOUR);
        applyThenDist(c, Samplers.temperatureExt(0f, 0f, 1f));
        check(c, 0f, 0f, 0f, 1f);
    }

    // ---------------------------------------------------------------- top-k, top-p, min-p

    static Stream<Arguments> topK() {
        return Stream.of(
                Arguments.of(1, new float[] {1f}),
                Arguments.of(3, new float[] {0.44444f, 0.33333f, 0.22222f}),
                Arguments.of(4, new float[] {0.4f, 0.3f, 0.2f, 0.1f}),
                Arguments.of(0, new float[] {0.1f, 0.2f, 0.3f, 0.4f})); // k = 0: no-op, order kept
    }

    @ParameterizedTest
    @MethodSource
    void topK(int k, float[] expected) {
        Candidates c = tester(FOUR);
        applyThenDist(c, Samplers.topK(k));
        check(c, expected);
    }

    static Stream<Arguments> topP() {
        return Stream.of(
                Arguments.of(0f, new float[] {1f}),
                Arguments.of(0.7f, new float[] {0.571429f, 0.428571f}),
                Arguments.of(0.8f, new float[] {0.44444f, 0.33333f, 0.22222f}),
                Arguments.of(1f, new float[] {0.1f, 0.2f, 0.3f, 0.4f}));
    }

    @ParameterizedTest
    @MethodSource
    void topP(float p, float[] expected) {
        Candidates c = tester(FOUR);
        applyThenDist(c, Samplers.topP(p, 0));
        check(c, expected);
    }

    static Stream<Arguments> minP() {
        return Stream.of(
                Arguments.of(0.00f, new float[] {0.1f, 0.2f, 0.3f, 0.4f}),
                Arguments.of(0.24f, new float[] {0.1f, 0.2f, 0.3f, 0.4f}),
                Arguments.of(0.26f, new float[] {0.2f / 0.9f, 0.3f / 0.9f, 0.4f / 0.9f}),
                Arguments.of(0.49f, new float[] {0.2f / 0.9f, 0.3f / 0.9f, 0.4f / 0.9f}),
                Arguments.of(0.51f, new float[] {0.3f / 0.7f, 0.4f / 0.7f}),
                Arguments.of(0.74f, new float[] {0.3f / 0.7f, 0.4f / 0.7f}),
                Arguments.of(0.76f, new float[] {1f}),
                Arguments.of(1.00f, new float[] {1f}),
                Arguments.of(1.05f, new float[] {1f}));
    }

    @ParameterizedTest
    @MethodSource
    void minP(float p, float[] expected) {
        Candidates c = tester(FOUR);
        applyThenDist(c, Samplers.minP(p, 0));
        check(c, expected);
    }

    // ---------------------------------------------------------------- XTC, typical, top-n-sigma

    static Stream<Arguments> xtc() {
        return Stream.of(
                Arguments.of(0.09f, new float[] {0.1f}),
                Arguments.of(0.19f, new float[] {0.2f, 0.1f}),
                Arguments.of(0.29f, new float[] {0.3f, 0.2f, 0.1f}),
                Arguments.of(0.39f, new float[] {0.4f, 0.3f, 0.2f, 0.1f})); // only one above: nothing removed
    }

    @ParameterizedTest
    @MethodSource
    void xtc(float threshold, float[] expected) {
        // Probability 0.99: the seed-0 draw (0.5488, the first mt19937(0) output 2357136044 / 2^32) is below it.
        Candidates c = tester(0.4f, 0.3f, 0.2f, 0.1f);
        Samplers.xtc(0.99f, threshold, 0, 0).apply(c);
        check(c, expected);
    }

    @Test
    void typical_keepsTheLocallyTypicalTokens() {
        Candidates c = tester(0.97f, 0.01f, 0.01f, 0.01f);
        Samplers.typical(0.5f, 0).apply(c);
        check(c, 0.97f);
        c = tester(0.4f, 0.2f, 0.2f, 0.2f);
        Samplers.typical(0.5f, 0).apply(c);
        check(c, 0.2f, 0.2f, 0.2f);
    }

    static Stream<Arguments> topNSigma() {
        return Stream.of(
                Arguments.of(1f, new float[] {0f, 0f, 0.428571f, 0.571429f}),
                Arguments.of(0f, new float[] {0.1f, 0.2f, 0.3f, 0.4f}), // 0 is a no-op (llama.cpp PR 13345)
                Arguments.of(3f, new float[] {0.1f, 0.2f, 0.3f, 0.4f}));
    }

    @ParameterizedTest
    @MethodSource
    void topNSigma(float n, float[] expected) {
        Candidates c = tester(FOUR);
        applyThenDist(c, Samplers.topNSigma(n));
        check(c, expected);
    }

    // ---------------------------------------------------------------- penalties and DRY

    static Stream<Arguments> penalties() {
        float[] five = {0.2f, 0.2f, 0.2f, 0.2f, 0.2f};
        return Stream.of(
                Arguments.of(five, new int[] {0}, new float[] {0, 0.25f, 0.25f, 0.25f, 0.25f}, 50f, 0f, 0f),
                Arguments.of(five, new int[] {0, 1, 2}, new float[] {0, 0, 0, 0.5f, 0.5f}, 50f, 0f, 0f),
                Arguments.of(five, new int[] {0, 1, 2, 0, 0}, new float[] {0, 0, 0, 0.5f, 0.5f}, 50f, 0f, 0f),
                Arguments.of(five, new int[] {0},
                        new float[] {0.000011f, 0.249997f, 0.249997f, 0.249997f, 0.249997f}, 1f, 5f, 5f),
                Arguments.of(five, new int[] {0, 1, 2},
                        new float[] {0.000023f, 0.000023f, 0.000023f, 0.499966f, 0.499966f}, 1f, 5f, 5f),
                Arguments.of(five, new int[] {0, 1, 2, 0, 0},
                        new float[] {0.000000f, 0.000023f, 0.000023f, 0.499977f, 0.499977f}, 1f, 5f, 5f));
    }

    @ParameterizedTest
    @MethodSource
    void penalties(float[] probs, int[] last, float[] expected, float repeat, float frequency, float presence) {
        Sampler s = Samplers.penalties(last.length, repeat, frequency, presence);
        for (int t : last) {
            s.accept(t);
        }
        Candidates c = tester(probs);
        applyThenDist(c, s);
        check(c, expected);
    }

    static Stream<Arguments> dry() {
        float[] four = {0.25f, 0.25f, 0.25f, 0.25f};
        float[] five = {0.2f, 0.2f, 0.2f, 0.2f, 0.2f};
        return Stream.of(
                Arguments.of(four, new int[] {0, 1}, four, 1f, 1.1f, 2, 4, List.of()),
                Arguments.of(four, new int[] {0, 1, 2, 0, 1}, new float[] {0.296923f, 0.296923f, 0.109232f, 0.296923f},
                        1f, 1.1f, 2, 5, List.of()),
                Arguments.of(five, new int[] {0, 1, 3, 4, 0, 1}, five, 1f, 1.1f, 2, 6, List.of(new int[] {3})),
                Arguments.of(five, new int[] {0, 1, 2, 0, 1},
                        new float[] {0.241818f, 0.241818f, 0.032727f, 0.241818f, 0.241818f}, 2f, 1.1f, 2, 5, List.of()),
                Arguments.of(five, new int[] {0, 1, 2, 3, 4, 0, 1}, five, 1f, 1.1f, 4, 7, List.of()));
    }

    @ParameterizedTest
    @MethodSource
    void dry(float[] probs, int[] last, float[] expected, float multiplier, float base, int allowed, int lastN,
             List<int[]> breakers) {
        Sampler s = Samplers.dry(multiplier, base, allowed, lastN, breakers);
        for (int t : last) {
            s.accept(t);
        }
        Candidates c = tester(probs);
        applyThenDist(c, s);
        check(c, expected);
    }

    // ---------------------------------------------------------------- sampler queues

    static Stream<Arguments> samplerQueue() {
        return Stream.of(
                Arguments.of("k", 10000, 1.0f, 1.0f), Arguments.of("k", 1, 1.0f, 1.0f),
                Arguments.of("p", 10000, 1.0f, 1.0f), Arguments.of("p", 10000, 0.0f, 1.0f),
                Arguments.of("m", 10000, 1.0f, 1.0f), Arguments.of("m", 10000, 1.0f, 1e-12f),
                Arguments.of("k", 100, 1.0f, 1.0f), Arguments.of("p", 10000, 0.0003f, 1.0f),
                Arguments.of("p", 10000, 0.8f, 1.0f), Arguments.of("m", 10000, 1.0f, 9997.9f / 9999.0f),
                Arguments.of("m", 10000, 1.0f, 0.1f),
                Arguments.of("kp", 100, 0.8f, 0.1f), Arguments.of("km", 100, 0.8f, 0.1f),
                Arguments.of("pk", 100, 0.8f, 0.1f), Arguments.of("pm", 100, 0.8f, 0.1f),
                Arguments.of("mk", 100, 0.8f, 0.1f), Arguments.of("mp", 100, 0.8f, 9997.9f / 9999.0f),
                Arguments.of("mp", 100, 0.8f, 0.1f),
                Arguments.of("kpm", 100, 0.8f, 0.1f), Arguments.of("kmp", 100, 0.8f, 0.1f),
                Arguments.of("pkm", 100, 0.8f, 0.1f), Arguments.of("pmk", 100, 0.8f, 0.1f),
                Arguments.of("mkp", 100, 0.8f, 0.1f), Arguments.of("mpk", 100, 0.8f, 0.1f));
    }

    /**
     * {@code test_sampler_queue}: 10,000 tokens with logit {@code ln(id)} (so {@code p ∝ id}); after each
     * sampler (then dist) the size and the first and last token ids follow from the arithmetic of that
     * distribution, as llama.cpp computes them.
     */
    @ParameterizedTest
    @MethodSource
    void samplerQueue(String sequence, int topK, float topP, float minP) {
        int nVocab = 10000;
        float[] logits = new float[nVocab];
        for (int i = 0; i < nVocab; i++) {
            logits[i] = (float) Math.log(i);
        }
        Candidates c = Candidates.fromLogits(logits);
        int minTokenId = 0;
        int maxTokenId = nVocab - 1;
        for (char s : sequence.toCharArray()) {
            Sampler sampler = switch (s) {
                case 'k' -> Samplers.topK(topK);
                case 'p' -> Samplers.topP(topP, 1);
                case 'm' -> Samplers.minP(minP, 1);
                default -> throw new IllegalArgumentException("sampler " + s);
            };
            applyThenDist(c, sampler);
            int size = c.size();
            if (s == 'k') {
                int expectedSize = Math.min(size, topK);
                minTokenId = Math.max(minTokenId, nVocab - topK);
                assertEquals(expectedSize, size);
                assertEquals(maxTokenId, c.id(0));
                assertEquals(minTokenId, c.id(expectedSize - 1));
            } else if (s == 'p') {
                int divisor = nVocab * (nVocab - 1) / 2 - minTokenId * (minTokenId - 1) / 2;
                int target = (int) Math.ceil(topP * divisor);
                minTokenId = nVocab;
                int expectedSize = 0;
                int cumsum = 0;
                do { // at least one token is kept
                    minTokenId--;
                    expectedSize++;
                    cumsum += minTokenId;
                } while (cumsum < target);
                if (minTokenId == 1) { // token 0 has p = 0 and is kept with the last step
                    minTokenId--;
                    expectedSize++;
                }
                assertEquals(expectedSize, size);
                assertTrue(!c.isSorted() || c.id(0) == maxTokenId);
                assertTrue(!c.isSorted() || c.id(expectedSize - 1) == minTokenId);
            } else {
                int expectedSize = (int) Math.ceil((1.0f - minP) * nVocab);
                expectedSize = Math.max(expectedSize, 1);
                expectedSize = Math.min(expectedSize, size);
                minTokenId = (int) Math.floor(minP * nVocab);
                minTokenId = Math.max(minTokenId, 1);
                minTokenId = Math.max(minTokenId, nVocab - size);
                minTokenId = Math.min(minTokenId, nVocab - 1);
                assertEquals(expectedSize, size);
                assertTrue(!c.isSorted() || c.id(0) == maxTokenId);
                assertTrue(!c.isSorted() || c.id(expectedSize - 1) == minTokenId);
            }
        }
    }
}
