package dev.rlx.testkit.cases;

import static dev.rlx.testkit.cases.Shapes.dims;
import static dev.rlx.testkit.cases.Shapes.of;
import static dev.rlx.testkit.cases.Shapes.t;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.HeadLayout;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.testkit.Data;
import dev.rlx.testkit.OpCase;
import dev.rlx.testkit.OpFamily;
import dev.rlx.testkit.Tolerance;
import java.util.ArrayList;
import java.util.List;

/**
 * Scaled dot-product attention (every mask, layout, head grouping, scale and softcap; f32 sizes that take the
 * row and the blocked kernels) and rotary embedding (rotate-half and interleaved, partial, every layout,
 * per-batch tables).
 *
 * <p>f32 attention: inputs in [-1, 1); each q.k dot (D <= 64 terms) and p.v sum (Sk <= 300 terms) rounds in
 * f32, about 1e-7 relative per step, so 1e-5 absolute leaves a wide margin while an indexing or masking mistake
 * shows at 1e-1. A row that sees no key is exactly zero: those rows are a second output, compared exactly.
 */
final class AttentionCases {
    private AttentionCases() {}

    static final Tolerance F32 = Tolerance.of(1e-5, 1e-4, "f32 dot products of <= 64 terms and sums of <= 300");
    static final Tolerance F64 = Tolerance.of(1e-12, 1e-10, "double, summed in another order");
    static final Tolerance ZERO_ROWS = Tolerance.exact("a row that sees no key is exactly zero");

    /** One attention problem; {@code zeroRows} slices out rows that see no key ([axis, start, length] triples). */
    private record Problem(String name, Op.Attention op, int batch, int sq, int sk, DType dtype, boolean rank3,
                           int[] maskDims, boolean keepMask, Data mask, double range, int[][] zeroRows) {
        static Problem of(String name, Op.Attention op, int batch, int sq, int sk) {
            return new Problem(name, op, batch, sq, sk, DType.F32, false, null, false, null, 1, new int[0][]);
        }

        Problem f64() { return new Problem(name, op, batch, sq, sk, DType.F64, rank3, maskDims, keepMask, mask, range, zeroRows); }

        Problem inRank3() { return new Problem(name, op, batch, sq, sk, dtype, true, maskDims, keepMask, mask, range, zeroRows); }

        Problem additive(Data m, int... d) { return new Problem(name, op, batch, sq, sk, dtype, rank3, d, false, m, range, zeroRows); }

        Problem keep(Data m, int... d) { return new Problem(name, op, batch, sq, sk, dtype, rank3, d, true, m, range, zeroRows); }

        /** q and k in [-r, r), to drive scores into the softcap. */
        Problem range(double r) { return new Problem(name, op, batch, sq, sk, dtype, rank3, maskDims, keepMask, mask, r, zeroRows); }

        Problem zeroRows(int[]... slices) { return new Problem(name, op, batch, sq, sk, dtype, rank3, maskDims, keepMask, mask, range, slices); }

        Shape shape(int seq, int heads) {
            int d = op.headDim();
            if (op.layout() == HeadLayout.BHSD) {
                return Shape.of(dtype, batch, heads, seq, d);
            }
            return rank3 ? Shape.of(dtype, batch, seq, heads * d) : Shape.of(dtype, batch, seq, heads, d);
        }

        OpCase toCase() {
            OpCase.Builder b = OpCase.named(name + "_" + t(dtype))
                    .graph(this::build)
                    .data("q", Data.uniform(-range, range))
                    .data("k", Data.uniform(-range, range))
                    .tolerance(dtype, switch (dtype) {
                        case F64 -> F64;
                        case F16 -> Tolerance.of(1e-3, 1e-3, "computed in f32 and rounded once to f16");
                        case BF16 -> Tolerance.of(8e-3, 8e-3, "computed in f32 and rounded once to bf16");
                        default -> F32;
                    })
                    .tolerance(1, ZERO_ROWS);
            if (mask != null) {
                b.data("mask", mask);
            }
            return b.build();
        }

        private void build(Graph g) {
            Value q = g.input("q", shape(sq, op.numHeads()));
            Value k = g.input("k", shape(sk, op.numKvHeads()));
            Value v = g.input("v", shape(sk, op.numKvHeads()));
            Value m = maskDims == null ? null : g.input("mask", Shape.of(keepMask ? DType.BOOL : dtype, maskDims));
            Value y = g.attention(q, k, v, m, op);
            if (zeroRows.length == 0) {
                g.setOutputs(y);
                return;
            }
            Value rows = y;
            for (int[] s : zeroRows) {
                rows = g.narrow(rows, s[0], s[1], s[2]);
            }
            g.setOutputs(y, rows);
        }
    }

    static OpFamily family() {
        List<OpCase> c = new ArrayList<>();
        for (Problem p : problems()) {
            c.add(p.toCase());
        }
        rope(c);
        return new OpFamily("attention", c);
    }

    private static List<Problem> problems() {
        double inf = Double.NEGATIVE_INFINITY;
        List<Problem> p = new ArrayList<>();
        p.add(Problem.of("attention_noMask", Op.Attention.of(2, 2, 20), 2, 5, 7));
        p.add(Problem.of("attention_causalWithLongerKeys", Op.Attention.of(2, 2, 16).causal(), 2, 4, 9));
        // Sq=6 > Sk=3: query i sees keys j <= i - 3, so rows 0..2 see nothing
        p.add(Problem.of("attention_causalWithMoreQueriesThanKeys", Op.Attention.of(2, 1, 8).causal(), 1, 6, 3)
                .zeroRows(new int[] {1, 0, 3}));
        p.add(Problem.of("attention_slidingWindow", Op.Attention.of(2, 2, 16).slidingWindow(3), 2, 8, 8));
        p.add(Problem.of("attention_slidingWindowWithLongerKeys", Op.Attention.of(2, 1, 16).slidingWindow(4), 1, 5, 11));
        p.add(Problem.of("attention_additiveMask", Op.Attention.of(3, 3, 16), 2, 5, 6).additive(Data.uniform(-2, 2), 2, 1, 5, 6));
        p.add(Problem.of("attention_boolMask", Op.Attention.of(2, 2, 16), 2, 6, 7).keep(Data.bools(), 6, 7));
        p.add(Problem.of("attention_causalPlusAdditiveMask", Op.Attention.of(4, 2, 8).causal(), 2, 5, 8)
                .additive(Data.uniform(-3, 1), 1, 4, 1, 8));
        p.add(Problem.of("attention_slidingWindowPlusBoolMask", Op.Attention.of(2, 2, 8).slidingWindow(4), 2, 7, 7)
                .keep(Data.bools(), 2, 2, 7, 7));
        // keep mask [B=2, H=2, Sq=4, Sk=5]: b=1, h=0, q=2 keeps no key; b=0, h=1, q=3 keeps all
        p.add(Problem.of("attention_fullyMaskedBoolRowGivesZeros", Op.Attention.of(2, 2, 8), 2, 4, 5)
                .keep(Data.bools().with(0, 50, 51, 52, 53, 54).with(1, 35, 36, 37, 38, 39), 2, 2, 4, 5)
                .zeroRows(new int[] {0, 1, 1}, new int[] {1, 2, 1}, new int[] {2, 0, 1}));
        // additive -inf on query 1 of every batch and head
        p.add(Problem.of("attention_fullyMaskedAdditiveRowGivesZeros", Op.Attention.of(2, 2, 8), 2, 4, 5)
                .additive(Data.standard().with(inf, 5, 6, 7, 8, 9), 1, 1, 4, 5)
                .zeroRows(new int[] {1, 1, 1}));
        p.add(Problem.of("attention_groupedQueryHeads", Op.Attention.of(6, 2, 16).causal(), 2, 5, 7));
        p.add(Problem.of("attention_multiQuery", Op.Attention.of(4, 1, 12), 1, 3, 6));
        p.add(Problem.of("attention_bhsdLayout", Op.Attention.of(4, 2, 16).withLayout(HeadLayout.BHSD).causal(), 2, 5, 9));
        p.add(Problem.of("attention_rank3Layout", Op.Attention.of(4, 2, 16).causal(), 2, 6, 6).inRank3());
        // q, k in [-3, 3) at scale 0.5 give scores up to ~36, well into the cap of 2
        p.add(Problem.of("attention_customScaleAndSoftcap", Op.Attention.of(2, 2, 8).withScale(0.5f).withSoftcap(2f).causal(),
                2, 5, 6).range(3));
        p.add(Problem.of("attention_softcapBeforeAdditiveMask", Op.Attention.of(2, 2, 8).withSoftcap(1.5f), 1, 4, 5)
                .range(3).additive(Data.uniform(-4, 4), 4, 5));
        p.add(Problem.of("attention_largeShapeRunsParallel", Op.Attention.of(8, 8, 64).causal(), 1, 256, 256));
        p.add(Problem.of("attention_manyChunksUnevenRows", Op.Attention.of(3, 1, 32).slidingWindow(5), 3, 37, 41));
        p.add(Problem.of("attention_causalGroupedBhsdSoftcapAdditiveMask",
                Op.Attention.of(4, 2, 12).withLayout(HeadLayout.BHSD).causal().withSoftcap(3f), 2, 5, 7)
                .range(2).additive(Data.standard(), 2, 4, 5, 7).f64());
        p.add(Problem.of("attention_slidingWindowBoolMaskRank3", Op.Attention.of(2, 2, 8).slidingWindow(2), 2, 6, 6)
                .inRank3().keep(Data.bools(), 6, 6).f64());
        p.add(Problem.of("attention_oneQueryOneKey", Op.Attention.of(1, 1, 1), 1, 1, 1));
        // the blocked f32 kernel (Sq >= 16, no query-varying mask): 70 queries are one whole block of 64 and a ragged one
        p.add(Problem.of("blockedAttention_noMaskRaggedBlocks", Op.Attention.of(3, 3, 20), 2, 70, 53));
        p.add(Problem.of("blockedAttention_causalWithCachedPrefix", Op.Attention.of(4, 2, 32).causal(), 1, 33, 97));
        // Sq=40 > Sk=17: queries 0..22 see nothing
        p.add(Problem.of("blockedAttention_causalWithMoreQueriesThanKeys", Op.Attention.of(2, 1, 16).causal(), 1, 40, 17)
                .zeroRows(new int[] {1, 0, 23}));
        p.add(Problem.of("blockedAttention_slidingWindowGroupedBhsd",
                Op.Attention.of(6, 2, 24).withLayout(HeadLayout.BHSD).slidingWindow(7), 2, 81, 90));
        // exactly the threshold of 16 queries, 300 keys: one short block, a long score column
        p.add(Problem.of("blockedAttention_smallestBlockAndLongKeys", Op.Attention.of(2, 2, 64).withScale(0.3f), 1, 16, 300)
                .inRank3());
        // a BERT-style [B, 1, 1, Sk] mask, the same for every query, with the last 5 keys of batch 0 padding
        p.add(Problem.of("blockedAttention_keyPaddingAdditiveMask", Op.Attention.of(3, 3, 16), 2, 40, 45)
                .additive(Data.uniform(-3, 1).with(inf, 40, 41, 42, 43, 44), 2, 1, 1, 45));
        p.add(Problem.of("blockedAttention_keyKeepMaskWithCausal", Op.Attention.of(2, 1, 16).causal(), 2, 33, 50)
                .keep(Data.bools(), 2, 1, 1, 50));
        p.add(Problem.of("blockedAttention_queryVaryingMaskFallsBackToRows", Op.Attention.of(2, 2, 16), 1, 20, 30)
                .additive(Data.uniform(-2, 2), 20, 30));
        List<Problem> halves = new ArrayList<>();
        for (DType t : new DType[] {DType.F16, DType.BF16}) {
            halves.add(new Problem("attention_causalGrouped", Op.Attention.of(4, 2, 16).causal(), 2, 9, 9, t, false, null,
                    false, null, 1, new int[0][]));
        }
        p.addAll(halves);
        return p;
    }

    // ---------------------------------------------------------------- rope

    /** f32: two products and one add per output, each rounded once (|x|, |table| < 1): ~2e-7 at worst. */
    private static void rope(List<OpCase> c) {
        c.add(rope("rotateHalf", new Op.Rope(40, 40, false, HeadLayout.BSHD), 2, 5, 3, DType.F32, false, 5, 20));
        c.add(rope("interleaved", new Op.Rope(16, 16, true, HeadLayout.BSHD), 2, 5, 3, DType.F32, false, 5, 8));
        c.add(rope("partialRotateHalf", new Op.Rope(24, 8, false, HeadLayout.BSHD), 2, 4, 2, DType.F32, true, 4, 4));
        c.add(rope("partialInterleaved", new Op.Rope(20, 12, true, HeadLayout.BSHD), 1, 6, 2, DType.F32, false, 6, 6));
        c.add(rope("rank3Layout", new Op.Rope(32, 32, false, HeadLayout.BSHD), 2, 3, 4, DType.F32, true, 3, 16));
        c.add(rope("bhsdLayout", new Op.Rope(32, 16, false, HeadLayout.BHSD), 2, 5, 3, DType.F32, false, 5, 8));
        c.add(rope("bhsdLayoutInterleaved", new Op.Rope(12, 12, true, HeadLayout.BHSD), 2, 5, 3, DType.F32, false, 5, 6));
        c.add(rope("perBatchTables", new Op.Rope(32, 32, false, HeadLayout.BSHD), 3, 4, 2, DType.F32, false, 3, 4, 16));
        c.add(rope("perBatchTablesBhsdInterleaved", new Op.Rope(8, 8, true, HeadLayout.BHSD), 3, 4, 2, DType.F32, false, 3, 4, 4));
        c.add(rope("partialRank3", new Op.Rope(24, 16, false, HeadLayout.BSHD), 2, 4, 3, DType.F64, true, 2, 4, 8));
        c.add(rope("partialBhsdInterleaved", new Op.Rope(10, 6, true, HeadLayout.BHSD), 2, 4, 3, DType.F64, false, 4, 3));
        c.add(rope("manyRowsRunParallel", new Op.Rope(64, 64, false, HeadLayout.BSHD), 2, 128, 8, DType.F32, false, 128, 32));
        c.add(rope("rotateHalf", new Op.Rope(18, 18, false, HeadLayout.BSHD), 1, 5, 3, DType.F16, false, 5, 9));
        c.add(rope("interleaved", new Op.Rope(18, 14, true, HeadLayout.BHSD), 1, 5, 3, DType.BF16, false, 5, 7));
    }

    private static OpCase rope(String name, Op.Rope spec, int batch, int seq, int heads, DType t, boolean rank3,
                               int... tableDims) {
        int d = spec.headDim();
        Shape xs = spec.layout() == HeadLayout.BHSD ? Shape.of(t, batch, heads, seq, d)
                : rank3 ? Shape.of(t, batch, seq, heads * d) : Shape.of(t, batch, seq, heads, d);
        return OpCase.named("rope_" + name + "_" + t(t) + "_" + dims(xs.dims()))
                .graph(g -> g.setOutputs(g.rope(g.input("x", xs), g.input("cos", of(t, tableDims)),
                        g.input("sin", of(t, tableDims)), spec)))
                .tolerance(DType.F32, Tolerance.of(1e-6, 1e-5, "two products and an add rounded in f32"))
                .tolerance(DType.F64, Tolerance.of(1e-14, 0, "two products and an add in double"))
                .build();
    }
}
