package dev.rlx.llm.sample;

import static dev.rlx.llm.sample.LlamaCppSamplingTest.tester;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Behaviour beyond llama.cpp's own test file: ties, seeds, state updates, large lists, bad parameters. */
class SamplersTest {

    private static float[] randomLogits(int n, long seed) {
        Random r = new Random(seed);
        float[] l = new float[n];
        for (int i = 0; i < n; i++) {
            l[i] = (float) (r.nextGaussian() * 3);
        }
        return l;
    }

    private static int[] ids(Candidates c) {
        int[] out = new int[c.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = c.id(i);
        }
        return out;
    }

    // ---------------------------------------------------------------- greedy and dist

    @Test
    void greedy_firstMaximumWinsOnTies() {
        Candidates c = Candidates.fromLogits(new float[] {1f, 3f, 2f, 3f});
        Samplers.greedy().apply(c);
        assertEquals(1, c.selectedToken());
    }

    @Test
    void dist_drawsWithTheCandidateProbabilities() {
        // 40,000 draws over p = {0.1, 0.2, 0.3, 0.4}: each frequency within 4 standard errors (<= 0.01).
        Sampler d = Samplers.dist(123);
        int[] counts = new int[4];
        Candidates c = tester(0.1f, 0.2f, 0.3f, 0.4f);
        float[] logits = {(float) Math.log(0.1), (float) Math.log(0.2), (float) Math.log(0.3), (float) Math.log(0.4)};
        for (int i = 0; i < 40_000; i++) {
            c.reset(logits);
            d.apply(c);
            counts[c.selectedToken()]++;
        }
        for (int t = 0; t < 4; t++) {
            assertEquals(0.1 * (t + 1), counts[t] / 40_000.0, 0.01, "token " + t);
        }
    }

    @Test
    void dist_sameSeedSameTokensAndResetRestarts() {
        float[] logits = randomLogits(1000, 1);
        int[] a = draws(Samplers.dist(7), logits, 50);
        Sampler d = Samplers.dist(7);
        assertArrayEquals(a, draws(d, logits, 50));
        assertFalse(Arrays.equals(a, draws(d, logits, 50)), "the stream continues");
        d.reset();
        assertArrayEquals(a, draws(d, logits, 50));
        assertFalse(Arrays.equals(a, draws(Samplers.dist(8), logits, 50)), "another seed");
    }

    private static int[] draws(Sampler s, float[] logits, int n) {
        int[] out = new int[n];
        Candidates c = Candidates.fromLogits(logits);
        for (int i = 0; i < n; i++) {
            c.reset(logits);
            s.apply(c);
            out[i] = c.selectedToken();
        }
        return out;
    }

    @Test
    void dist_singleCandidateSelectedWithoutDrawAndEmptySelectsNothing() {
        Candidates c = Candidates.fromLogits(new float[] {-5f});
        Samplers.dist(1).apply(c);
        assertEquals(0, c.selected());
        assertEquals(1f, c.p(0));
        c.truncate(0);
        Samplers.dist(1).apply(c);
        assertEquals(-1, c.selected());
    }

    @Test
    void dist_allNegativeInfinityOrAnyPositiveInfinity_throws() {
        Candidates c = Candidates.fromLogits(new float[] {Float.NEGATIVE_INFINITY, Float.NEGATIVE_INFINITY});
        assertThrows(SamplingException.class, () -> Samplers.dist(1).apply(c));
        Candidates d = Candidates.fromLogits(new float[] {0f, Float.POSITIVE_INFINITY});
        assertThrows(SamplingException.class, () -> Samplers.dist(1).apply(d));
    }

    // ---------------------------------------------------------------- truncation

    @Test
    void topK_tiesGoToTheLowerId() {
        Candidates c = Candidates.fromLogits(new float[] {1f, 5f, 5f, 2f, 5f, 0f});
        Samplers.topK(2).apply(c);
        assertArrayEquals(new int[] {1, 2}, ids(c));
        assertTrue(c.isSorted());
    }

    @Test
    void topK_heapAndFullSortAgreeForSmallAndLargeK() {
        float[] logits = randomLogits(20_000, 2);
        logits[17] = logits[4];                      // a tie
        Integer[] order = new Integer[logits.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> logits[a] != logits[b] ? Float.compare(logits[b], logits[a]) : a - b);
        for (int k : new int[] {1, 40, 300, 5000, 20_000, 30_000}) {
            Candidates c = Candidates.fromLogits(logits);
            Samplers.topK(k).apply(c);
            int n = Math.min(k, logits.length);
            assertEquals(n, c.size());
            for (int i = 0; i < n; i++) {
                assertEquals(order[i], c.id(i), "k=" + k + " rank " + i);
            }
        }
    }

    @Test
    void topP_adaptivePathMatchesAReferenceNucleus() {
        // More than 1024 unsorted candidates take the top-256 shortcut (p = 0.999 needs more and falls back
        // to a full sort). Reference, as llama.cpp: p_i from a float softmax in index order, then tokens by
        // descending logit (ties: lower id) until the float running sum reaches p.
        float[] logits = randomLogits(5000, 3);
        float max = Float.NEGATIVE_INFINITY;
        for (float l : logits) {
            max = Math.max(max, l);
        }
        float sum = 0f;
        float[] e = new float[logits.length];
        for (int i = 0; i < logits.length; i++) {
            e[i] = (float) Math.exp(logits[i] - max);
            sum += e[i];
        }
        Integer[] order = new Integer[logits.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> logits[a] != logits[b] ? Float.compare(logits[b], logits[a]) : a - b);
        for (float p : new float[] {0.1f, 0.5f, 0.9f, 0.999f}) {
            float cum = 0f;
            int n = 0;
            while (n < order.length) {
                cum += e[order[n++]] / sum;
                if (cum >= p) {
                    break;
                }
            }
            Candidates c = Candidates.fromLogits(logits);
            Samplers.topP(p, 0).apply(c);
            assertEquals(n, c.size(), "p = " + p);
            for (int i = 0; i < n; i++) {
                assertEquals(order[i], c.id(i), "p = " + p + " rank " + i);
            }
        }
    }

    @Test
    void topP_minKeepKeepsMoreThanTheNucleus() {
        Candidates c = tester(0.1f, 0.2f, 0.3f, 0.4f);
        Samplers.topP(0.3f, 3).apply(c);
        assertArrayEquals(new int[] {3, 2, 1}, ids(c));
    }

    @Test
    void minP_minKeepAdmitsTheNextBest() {
        Candidates c = tester(0.05f, 0.9f, 0.03f, 0.02f);
        Samplers.minP(0.1f, 0).apply(c);
        assertArrayEquals(new int[] {1}, ids(c), "only the dominant token passes 0.1 * 0.9");
        c = tester(0.05f, 0.9f, 0.03f, 0.02f);
        Samplers.minP(0.1f, 2).apply(c);
        assertArrayEquals(new int[] {1, 0}, ids(c), "min_keep = 2 falls back to the best two, sorted");
    }

    @Test
    void typical_minKeepAndNeverEmpty() {
        Candidates c = tester(0.97f, 0.01f, 0.01f, 0.01f);
        Samplers.typical(0.5f, 3).apply(c);
        assertEquals(3, c.size());
        c = tester(0.25f, 0.25f, 0.25f, 0.25f);
        Samplers.typical(0.01f, 0).apply(c);
        assertEquals(1, c.size());
        assertFalse(c.isSorted());
    }

    @Test
    void topNSigma_keepsThePeakAndKillsTheFlatTail() {
        float[] logits = new float[100];
        logits[42] = 10f;
        Candidates c = Candidates.fromLogits(logits);
        Samplers.topNSigma(1f).apply(c);
        assertEquals(100, c.size());
        for (int i = 0; i < 100; i++) {
            assertEquals(i == 42 ? 10f : Float.NEGATIVE_INFINITY, c.logit(i), "token " + i);
        }
        assertEquals(1f, c.p(42));
    }

    // ---------------------------------------------------------------- temperature

    @Test
    void temperatureExt_uniformLogitsUseTheMaximumTemperature() {
        // Maximal entropy: normalised entropy 1, so t' = (t - delta) + 2·delta·1 = t + delta = 1.5.
        Candidates c = Candidates.fromLogits(new float[] {3f, 3f, 3f, 3f});
        Samplers.temperatureExt(1f, 0.5f, 1f).apply(c);
        for (int i = 0; i < 4; i++) {
            assertEquals(2f, c.logit(i), 1e-6f);
            assertEquals(0.25f, c.p(i), 1e-7f);
        }
    }

    @Test
    void temperatureExt_oneHotUsesTheMinimumTemperature() {
        // Entropy 0 (one token holds all the mass in float): t' = max(0, t - delta) = 0, i.e. greedy.
        Candidates c = Candidates.fromLogits(new float[] {0f, 200f, 0f});
        Samplers.temperatureExt(0.5f, 0.5f, 1f).apply(c);
        assertEquals(200f, c.logit(0));
        assertEquals(Float.NEGATIVE_INFINITY, c.logit(1));
    }

    // ---------------------------------------------------------------- XTC

    @Test
    void xtc_probabilityZeroIsIdentityAndALowChanceSkips() {
        Candidates c = tester(0.4f, 0.3f, 0.2f, 0.1f);
        Samplers.xtc(0f, 0.1f, 0, 1).apply(c);
        assertEquals(4, c.size());
        assertFalse(c.isSorted(), "not even sorted");
        // Seed 0 draws 0.5488 (the first mt19937(0) output / 2^32) > 0.5: no exclusion this time.
        Samplers.xtc(0.5f, 0.1f, 0, 0).apply(c);
        assertEquals(4, c.size());
    }

    @Test
    void xtc_minKeepBlocksTheExclusion() {
        Candidates c = tester(0.4f, 0.3f, 0.2f, 0.1f);
        Samplers.xtc(1f, 0.19f, 3, 0).apply(c); // removing two would leave 2 < 3
        assertEquals(4, c.size());
    }

    // ---------------------------------------------------------------- mirostat

    @Test
    void mirostat_muMovesTowardTheTargetSurprise() {
        Mirostat m = (Mirostat) Samplers.mirostat(4, 5, 3f, 0.1f, 100);
        assertEquals(6f, m.mu());
        Candidates c = tester(0.1f, 0.2f, 0.3f, 0.4f);
        m.apply(c);
        float p = c.p(c.selected());
        // mu = 2·tau − eta·(−log2 p − tau), in float
        assertEquals(6f - 0.1f * (-(float) (Math.log(p) / Math.log(2)) - 3f), m.mu(), 1e-6f);
        assertTrue(c.selected() >= 0);
        m.reset();
        assertEquals(6f, m.mu());
    }

    @Test
    void mirostatV2_truncatesAtMuAndSelectsOne() {
        // tau 0.5: mu = 1 bit, so only tokens with p > 0.5 survive: just the first.
        MirostatV2 m = (MirostatV2) Samplers.mirostatV2(9, 0.5f, 0.2f);
        Candidates c = tester(0.05f, 0.8f, 0.15f);
        m.apply(c);
        assertEquals(1, c.size());
        assertEquals(1, c.selectedToken());
        assertEquals(1f - 0.2f * (0f - 0.5f), m.mu(), 1e-6f); // p = 1 after renormalising: surprise 0
    }

    // ---------------------------------------------------------------- penalties and DRY

    @Test
    void penalties_repeatDividesPositiveAndMultipliesNegativeLogits() {
        Sampler s = Samplers.penalties(8, 2f, 0f, 0f);
        s.accept(0);
        s.accept(1);
        Candidates c = Candidates.fromLogits(new float[] {4f, -4f, 4f});
        s.apply(c);
        assertEquals(2f, c.logit(0));
        assertEquals(-8f, c.logit(1));
        assertEquals(4f, c.logit(2));
    }

    @Test
    void penalties_windowForgetsOldTokensAndResetClears() {
        Sampler s = Samplers.penalties(2, 1f, 1f, 0.5f);
        for (int t : new int[] {0, 1, 2, 2}) {
            s.accept(t);
        }
        Candidates c = Candidates.fromLogits(new float[] {0f, 0f, 0f});
        s.apply(c);
        assertArrayEquals(new float[] {0f, 0f, -2.5f}, new float[] {c.logit(0), c.logit(1), c.logit(2)},
                "only the last two (2, 2) count: 2·1 + 0.5");
        s.reset();
        c = Candidates.fromLogits(new float[] {0f, 0f, 0f});
        s.apply(c);
        assertEquals(0f, c.logit(2));
    }

    @Test
    void dry_penalisesTheContinuationOfABABA() {
        // History A B A B A: the suffix "A B A" repeats one back, so B would extend it (length 3).
        Sampler s = Samplers.dry(1f, 2f, 2, 16, List.of());
        for (int t : new int[] {0, 1, 0, 1, 0}) {
            s.accept(t);
        }
        Candidates c = Candidates.fromLogits(new float[] {0f, 0f, 0f});
        s.apply(c);
        assertEquals(0f, c.logit(0));
        assertEquals(-2f, c.logit(1), "multiplier · base^(3 − 2)");
        assertEquals(0f, c.logit(2));
    }

    @Test
    void dry_multiTokenBreakerStopsTheRepeat() {
        // History 0 1 0 1 7 8 0 1: the breaker "7 8" ends two tokens back, capping repeats at 2, so the
        // suffix "0 1" (which would otherwise match "0 1 0 1" further) counts as length 2 and token 0, which
        // followed its first occurrence, costs multiplier · base^(2 − 2) = 1.
        Sampler s = Samplers.dry(1f, 2f, 2, 16, List.of(new int[] {7, 8}));
        for (int t : new int[] {0, 1, 0, 1, 7, 8, 0, 1}) {
            s.accept(t);
        }
        Candidates c = Candidates.fromLogits(new float[] {0f, 0f, 0f});
        s.apply(c);
        assertEquals(-1f, c.logit(0), "\"0 1\" after the breaker is a repeat of length 2");
        Sampler broken = Samplers.dry(1f, 2f, 2, 16, List.of(new int[] {7, 8}));
        for (int t : new int[] {0, 1, 0, 1, 0, 7, 8}) {
            broken.accept(t);
        }
        Candidates d = Candidates.fromLogits(new float[] {0f, 0f, 0f});
        broken.apply(d);
        assertEquals(0f, d.logit(1), "the breaker ends every repeat");
    }

    @Test
    void dry_exponentIsCappedForLargeBases() {
        // base 1e20: cap = floor(88.72 / ln 1e20) = 1, so a repeat of length 6 costs base^1, not base^4.
        Sampler s = Samplers.dry(1f, 1e20f, 2, 64, List.of());
        for (int t : new int[] {0, 1, 2, 0, 1, 2, 0, 1}) {
            s.accept(t);
        }
        Candidates c = Candidates.fromLogits(new float[] {0f, 0f, 0f});
        s.apply(c);
        assertEquals(-1e20f, c.logit(2), 1e14f);
    }

    // ---------------------------------------------------------------- parameters

    @Test
    void factories_badParameters_namedInTheMessage() {
        rejects("p", () -> Samplers.topP(Float.NaN, 0));
        rejects("minKeep", () -> Samplers.minP(0.1f, -1));
        rejects("seed", () -> Samplers.dist(-1));
        rejects("seed", () -> Samplers.xtc(0.5f, 0.1f, 0, 1L << 32));
        rejects("nVocab", () -> Samplers.mirostat(0, 1, 5f, 0.1f, 100));
        rejects("tau", () -> Samplers.mirostatV2(1, Float.POSITIVE_INFINITY, 0.1f));
        rejects("lastN", () -> Samplers.penalties(-1, 1.1f, 0f, 0f));
        rejects("penaltyLastN", () -> Samplers.dry(1f, 1.75f, 2, -1, List.of()));
        rejects("temperature", () -> Samplers.temperature(Float.NaN));
        rejects("n", () -> Samplers.topNSigma(Float.NaN));
        rejects("empty", () -> Samplers.dry(1f, 1.75f, 2, 8, List.of(new int[0])));
    }

    private static void rejects(String mention, Executable call) {
        SamplingException e = assertThrows(SamplingException.class, call);
        assertTrue(e.getMessage().contains(mention), () -> "message should name " + mention + ": " + e.getMessage());
    }

    // ---------------------------------------------------------------- candidates

    @Test
    void candidates_resetRefillsAndRejectsNaNAndOverflow() {
        Candidates c = Candidates.fromLogits(new float[] {1f, 2f, 3f});
        Samplers.topK(1).apply(c);
        c.reset(new float[] {5f, 4f});
        assertEquals(2, c.size());
        assertEquals(1, c.id(1));
        assertFalse(c.isSorted());
        assertEquals(-1, c.selected());
        assertThrows(SamplingException.class, () -> c.reset(new float[] {0f, Float.NaN}));
        assertThrows(SamplingException.class, () -> c.reset(new float[4]));
        assertThrows(IndexOutOfBoundsException.class, () -> c.id(2));
        assertThrows(SamplingException.class, c::selectedToken);
    }

    @Test
    void candidates_resetTopEqualsResetThenTopK() {
        float[] logits = randomLogits(3000, 4);
        logits[10] = logits[2000] = logits[7]; // ties across the array
        for (int k : new int[] {1, 7, 40, 2999, 3000, 5000}) {
            Candidates a = new Candidates(3000);
            a.reset(logits);
            Samplers.topK(k).apply(a);
            Candidates b = new Candidates(3000);
            b.resetTop(logits, k);
            assertArrayEquals(ids(a), ids(b), "k = " + k);
            assertTrue(b.isSorted());
            assertEquals(-1, b.selected());
        }
        Candidates c = new Candidates(3);
        assertThrows(SamplingException.class, () -> c.resetTop(new float[] {1f, Float.NaN, 0f}, 1));
        assertThrows(SamplingException.class, () -> c.resetTop(new float[4], 1));
        assertThrows(SamplingException.class, () -> c.resetTop(new float[2], 0));
    }

    @Test
    void candidates_sortOrdersNegativeZeroAsZeroAndTiesByLowerId() {
        Candidates c = Candidates.fromLogits(new float[] {0f, -0f, -1f, 0f, Float.NEGATIVE_INFINITY});
        c.softmax();
        assertArrayEquals(new int[] {0, 1, 3, 2, 4}, ids(c));
        assertNotEquals(0f, c.p(0));
        assertEquals(0f, c.p(4));
    }
}
