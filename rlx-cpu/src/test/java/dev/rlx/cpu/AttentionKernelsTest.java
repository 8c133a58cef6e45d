package dev.rlx.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rlx.testkit.Close;
import dev.rlx.testkit.reference.NnReference;
import dev.rlx.testkit.reference.Ref;
import dev.rlx.cpu.testing.Runner;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.HeadLayout;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The CPU attention kernel against {@link NnReference#attention} on random data. */
class AttentionKernelsTest {
    /**
     * f32: inputs are exact floats in [-1, 1); the kernel rounds each q.k dot product (D <= 64 terms) and the
     * p.v sums (Sk <= 256 terms of size <= 1) in f32, about 1e-7 relative per step, so 1e-5 absolute leaves
     * a wide margin while any indexing or masking mistake shows up at the 1e-1 level.
     */
    private static final double F32_ATOL = 1e-5;
    private static final double F32_RTOL = 1e-4;
    /** f64 computes in double throughout; only summation order differs from the reference. */
    private static final double F64_ATOL = 1e-12;
    private static final double F64_RTOL = 1e-10;

    /** One attention problem, held in the canonical [B, S, H, D] form and fed in the spec's layout. */
    private record Case(Op.Attention spec, int batch, int sq, int sk, DType dtype, boolean rank3, Ref mask,
                        boolean keepMask, int threads, double range) {
        static Case of(Op.Attention spec, int batch, int sq, int sk) {
            return new Case(spec, batch, sq, sk, DType.F32, false, null, false, 0, 1);
        }

        Case withF64() { return new Case(spec, batch, sq, sk, DType.F64, rank3, mask, keepMask, threads, range); }

        Case withRank3() { return new Case(spec, batch, sq, sk, dtype, true, mask, keepMask, threads, range); }

        Case withAdditiveMask(Ref m) { return new Case(spec, batch, sq, sk, dtype, rank3, m, false, threads, range); }

        Case withKeepMask(Ref m) { return new Case(spec, batch, sq, sk, dtype, rank3, m, true, threads, range); }

        Case withThreads(int t) { return new Case(spec, batch, sq, sk, dtype, rank3, mask, keepMask, t, range); }

        /** q and k in [-range, range), to drive scores into the softcap. */
        Case withRange(double r) { return new Case(spec, batch, sq, sk, dtype, rank3, mask, keepMask, threads, r); }
    }

    /** Runs {@code c} on random data and checks it; returns the actual output in [B, Sq, H, D] form. */
    private static Ref check(Case c, long seed) {
        Op.Attention a = c.spec();
        Random r = new Random(seed);
        Ref q = Ref.random(r, -c.range(), c.range(), c.batch(), c.sq(), a.numHeads(), a.headDim());
        Ref k = Ref.random(r, -c.range(), c.range(), c.batch(), c.sk(), a.numKvHeads(), a.headDim());
        Ref v = Ref.random(r, -1, 1, c.batch(), c.sk(), a.numKvHeads(), a.headDim());

        Graph g = new Graph("attention");
        Value qv = g.input("q", shape(c, c.sq(), a.numHeads()));
        Value kv = g.input("k", shape(c, c.sk(), a.numKvHeads()));
        Value vv = g.input("v", shape(c, c.sk(), a.numKvHeads()));
        Value mv = c.mask() == null ? null
                : g.input("mask", Shape.of(c.keepMask() ? DType.BOOL : c.dtype(), c.mask().dims()));
        g.setOutputs(g.attention(qv, kv, vv, mv, a));
        Map<String, Object> data = new HashMap<>();
        data.put("q", fed(c, q));
        data.put("k", fed(c, k));
        data.put("v", fed(c, v));
        if (c.mask() != null) {
            data.put("mask", c.mask());
        }
        double[] out = Runner.run(g, data, c.threads()).get(0);

        Ref expected = NnReference.attention(q, k, v, c.mask(), c.keepMask(), a);
        Ref actual = a.layout() == HeadLayout.BHSD
                ? NnReference.swapSeqHeads(new Ref(new int[] {c.batch(), a.numHeads(), c.sq(), a.headDim()}, out))
                : new Ref(expected.dims(), out);
        boolean f32 = c.dtype() == DType.F32;
        Close.assertClose(expected.data(), actual.data(), f32 ? F32_ATOL : F64_ATOL, f32 ? F32_RTOL : F64_RTOL,
                "attention " + a + " " + c.dtype());
        return actual;
    }

    private static Shape shape(Case c, int seq, int heads) {
        int d = c.spec().headDim();
        if (c.spec().layout() == HeadLayout.BHSD) {
            return Shape.of(c.dtype(), c.batch(), heads, seq, d);
        }
        return c.rank3() ? Shape.of(c.dtype(), c.batch(), seq, heads * d) : Shape.of(c.dtype(), c.batch(), seq, heads, d);
    }

    /** Canonical data in the layout the graph takes (rank 3 BSHD has the same element order as rank 4). */
    private static Object fed(Case c, Ref canonical) {
        Ref x = c.spec().layout() == HeadLayout.BHSD ? NnReference.swapSeqHeads(canonical) : canonical;
        return c.dtype() == DType.F64 ? x.data() : x.floats();
    }

    private static void assertZeroRow(Ref out, int b, int qi, int h) {
        for (int d = 0; d < out.dim(3); d++) {
            assertEquals(0.0, out.at(b, qi, h, d), "row b=" + b + " q=" + qi + " h=" + h + " must be exactly zero");
        }
    }

    // ---------------------------------------------------------------- masks

    @Test
    void attention_noMask() {
        check(Case.of(Op.Attention.of(2, 2, 20), 2, 5, 7), 1);
    }

    @Test
    void attention_causalWithLongerKeys() {
        check(Case.of(Op.Attention.of(2, 2, 16).causal(), 2, 4, 9), 2);
    }

    @Test
    void attention_causalWithMoreQueriesThanKeys() {
        // Sq=6 > Sk=3: query i sees keys j <= i - 3, so rows 0..2 see nothing and must be zeros.
        Ref out = check(Case.of(Op.Attention.of(2, 1, 8).causal(), 1, 6, 3), 3);
        for (int qi = 0; qi < 3; qi++) {
            assertZeroRow(out, 0, qi, 0);
            assertZeroRow(out, 0, qi, 1);
        }
    }

    @Test
    void attention_slidingWindow() {
        check(Case.of(Op.Attention.of(2, 2, 16).slidingWindow(3), 2, 8, 8), 4);
    }

    @Test
    void attention_slidingWindowWithLongerKeys() {
        check(Case.of(Op.Attention.of(2, 1, 16).slidingWindow(4), 1, 5, 11), 5);
    }

    @Test
    void attention_additiveMask() {
        Random r = new Random(6);
        check(Case.of(Op.Attention.of(3, 3, 16), 2, 5, 6).withAdditiveMask(Ref.random(r, -2, 2, 2, 1, 5, 6)), 6);
    }

    @Test
    void attention_boolMask() {
        Random r = new Random(7);
        check(Case.of(Op.Attention.of(2, 2, 16), 2, 6, 7).withKeepMask(Ref.randomInts(r, 0, 2, 6, 7)), 7);
    }

    @Test
    void attention_causalPlusAdditiveMask() {
        Random r = new Random(8);
        check(Case.of(Op.Attention.of(4, 2, 8).causal(), 2, 5, 8).withAdditiveMask(Ref.random(r, -3, 1, 1, 4, 1, 8)), 8);
    }

    @Test
    void attention_slidingWindowPlusBoolMask() {
        Random r = new Random(9);
        check(Case.of(Op.Attention.of(2, 2, 8).slidingWindow(4), 2, 7, 7).withKeepMask(Ref.randomInts(r, 0, 2, 2, 2, 7, 7)), 9);
    }

    @Test
    void attention_fullyMaskedRowGivesZeros() {
        Random r = new Random(10);
        Ref keep = Ref.randomInts(r, 0, 2, 2, 2, 4, 5);
        for (int j = 0; j < 5; j++) {
            keep.set(0, 1, 0, 2, j); // b=1, h=0, q=2 keeps no key
            keep.set(1, 0, 1, 3, j); // and b=0, h=1, q=3 keeps all
        }
        Ref out = check(Case.of(Op.Attention.of(2, 2, 8), 2, 4, 5).withKeepMask(keep), 10);
        assertZeroRow(out, 1, 2, 0);

        Ref add = Ref.random(r, -1, 1, 1, 1, 4, 5);
        for (int j = 0; j < 5; j++) {
            add.set(Double.NEGATIVE_INFINITY, 0, 0, 1, j); // query 1 of every batch and head
        }
        Ref out2 = check(Case.of(Op.Attention.of(2, 2, 8), 2, 4, 5).withAdditiveMask(add), 11);
        assertZeroRow(out2, 0, 1, 0);
        assertZeroRow(out2, 1, 1, 1);
    }

    // ---------------------------------------------------------------- heads, layouts, scale

    @Test
    void attention_groupedQueryHeads() {
        check(Case.of(Op.Attention.of(6, 2, 16).causal(), 2, 5, 7), 12);
    }

    @Test
    void attention_multiQuery() {
        check(Case.of(Op.Attention.of(4, 1, 12), 1, 3, 6), 13);
    }

    @Test
    void attention_bhsdLayout() {
        check(Case.of(Op.Attention.of(4, 2, 16).withLayout(HeadLayout.BHSD).causal(), 2, 5, 9), 14);
    }

    @Test
    void attention_rank3Layout() {
        check(Case.of(Op.Attention.of(4, 2, 16).causal(), 2, 6, 6).withRank3(), 15);
    }

    @Test
    void attention_customScaleAndSoftcap() {
        // q, k in [-3, 3) at scale 0.5 give scores up to ~36, well into the cap of 2.
        Op.Attention a = Op.Attention.of(2, 2, 8).withScale(0.5f).withSoftcap(2f).causal();
        check(Case.of(a, 2, 5, 6).withRange(3), 16);
    }

    @Test
    void attention_softcapBeforeAdditiveMask() {
        Random r = new Random(17);
        Op.Attention a = Op.Attention.of(2, 2, 8).withSoftcap(1.5f);
        check(Case.of(a, 1, 4, 5).withRange(3).withAdditiveMask(Ref.random(r, -4, 4, 4, 5)), 17);
    }

    @Test
    void attention_largeShapeRunsParallel() {
        check(Case.of(Op.Attention.of(8, 8, 64).causal(), 1, 256, 256).withThreads(2), 18);
    }

    @Test
    void attention_manyChunksUnevenRows() {
        // more threads than the machine has: chunks still own disjoint scratch, rows split round-robin
        check(Case.of(Op.Attention.of(3, 1, 32).slidingWindow(5), 3, 37, 41).withThreads(5), 19);
    }

    // ---------------------------------------------------------------- f64

    @Test
    void attention_f64CausalGroupedWithAdditiveMask() {
        Random r = new Random(20);
        Op.Attention a = Op.Attention.of(4, 2, 12).withLayout(HeadLayout.BHSD).causal().withSoftcap(3f);
        check(Case.of(a, 2, 5, 7).withF64().withRange(2).withAdditiveMask(Ref.random(r, -1, 1, 2, 4, 5, 7)), 20);
    }

    @Test
    void attention_f64SlidingWindowBoolMask() {
        Random r = new Random(21);
        Op.Attention a = Op.Attention.of(2, 2, 8).slidingWindow(2);
        check(Case.of(a, 2, 6, 6).withF64().withRank3().withKeepMask(Ref.randomInts(r, 0, 2, 6, 6)), 21);
    }

    // ---------------------------------------------------------------- the blocked f32 kernel (Sq >= 16, no mask operand)

    @Test
    void blocked_noMaskRaggedBlocks() {
        // 70 queries: one whole block of 64 (AVX-512) and a ragged one; an odd head dim
        check(Case.of(Op.Attention.of(3, 3, 20), 2, 70, 53).withThreads(2), 30);
    }

    @Test
    void blocked_causalWithCachedPrefix() {
        check(Case.of(Op.Attention.of(4, 2, 32).causal(), 1, 33, 97), 31);
    }

    @Test
    void blocked_causalWithMoreQueriesThanKeys() {
        // Sq=40 > Sk=17: queries 0..22 see nothing and must be zeros
        Ref out = check(Case.of(Op.Attention.of(2, 1, 16).causal(), 1, 40, 17), 32);
        for (int qi = 0; qi < 23; qi++) {
            assertZeroRow(out, 0, qi, 0);
            assertZeroRow(out, 0, qi, 1);
        }
    }

    @Test
    void blocked_slidingWindowGroupedBhsd() {
        Op.Attention a = Op.Attention.of(6, 2, 24).withLayout(HeadLayout.BHSD).slidingWindow(7);
        check(Case.of(a, 2, 81, 90).withThreads(2), 33);
    }

    @Test
    void blocked_smallestBlockAndLongKeys() {
        // exactly the threshold of 16 queries, 300 keys: one short block, a long score column
        check(Case.of(Op.Attention.of(2, 2, 64).withScale(0.3f), 1, 16, 300).withRank3(), 34);
    }

    @Test
    void blocked_keyPaddingAdditiveMask() {
        // BERT-style [B, 1, 1, Sk] mask: the same for every query, so the blocked kernel takes it
        Random r = new Random(35);
        Ref mask = Ref.random(r, -3, 1, 2, 1, 1, 45);
        for (int k = 40; k < 45; k++) {
            mask.data()[k] = Double.NEGATIVE_INFINITY; // padding keys of batch 0
        }
        check(Case.of(Op.Attention.of(3, 3, 16), 2, 40, 45).withAdditiveMask(mask).withThreads(2), 35);
    }

    @Test
    void blocked_keyKeepMaskWithCausal() {
        Random r = new Random(36);
        check(Case.of(Op.Attention.of(2, 1, 16).causal(), 2, 33, 50)
                .withKeepMask(Ref.randomInts(r, 0, 2, 2, 1, 1, 50)), 36);
    }

    @Test
    void blocked_queryVaryingMaskFallsBackToRows() {
        Random r = new Random(37);
        check(Case.of(Op.Attention.of(2, 2, 16), 1, 20, 30).withAdditiveMask(Ref.random(r, -2, 2, 20, 30)), 37);
    }
}
