package dev.rlx.ir;

import static dev.rlx.ir.Check.f32;

import dev.rlx.ir.quant.BlockFormat;
import java.util.List;
import java.util.Random;

/** Test-only fixed graphs. */
final class SampleGraphs {
    private SampleGraphs() {}

    /** Attributes holding every value type Attrs supports, with awkward values. */
    static Attrs everyAttrType() {
        return Attrs.of(
                "long", Long.MIN_VALUE,
                "int", 7,
                "double", -0.0,
                "nan", Double.NaN,
                "inf", Double.NEGATIVE_INFINITY,
                "float", 1.5f,
                "yes", true,
                "no", false,
                "text", "héllo \u2603 \uD83D\uDE00",
                "empty", "",
                "longs", List.of(1L, -2L, Long.MAX_VALUE),
                "doubles", List.of(0.1, Double.MIN_VALUE),
                "none", List.of());
    }

    /** A graph using every op record, a constant of every dtype, subgraphs and display names. */
    static Graph allOps() {
        Random r = new Random(42);
        Graph g = new Graph("all_ops");
        Value x = g.input("x", f32(2, 3, 4));
        Value w = g.param("w", f32(4, 5));
        for (DType t : DType.values()) {
            g.name(g.constant(RandomGraphs.tensor(Shape.of(t, 2), r)), "const_" + t.label());
        }
        Value sc = g.scalar(DType.F64, 2.5);
        Value u = g.gelu(x);
        Value b = g.pow(u, x);
        Value cmp = g.ge(b, x);
        Value wh = g.where(cmp, b, x);
        Value cast = g.cast(wh, DType.BF16);
        Value mm = g.name(g.matmul(x, w), "projection");
        Value red = g.reduceMean(mm, true, -1, 0);
        Value am = g.argMin(mm, 1, false);
        Value sm = g.softmax(mm, -1);
        Value lsm = g.logSoftmax(mm, 0);
        Value cs = g.cumsum(mm, 2, true, false);
        List<Value> tk = g.topK(mm, 2, -1, false);
        g.name(tk.get(1), "top_indices");
        Value ln = g.layerNorm(x, g.param("ln_g", f32(3, 4)), g.param("ln_b", f32(3, 4)), 1, 1e-5f);
        Value rn = g.rmsNorm(x, g.param("rn_g", f32(4)), 1e-6f);
        Value gn = g.groupNorm(x, g.param("gn_g", f32(3)), g.param("gn_b", f32(3)), 3, 1e-5f);
        Value rs = g.reshape(x, 6, -1);
        Value tr = g.transpose(x, 2, 0, 1);
        Value sl = g.slice(x, 2, 3, 2, -2);
        Value cat = g.concat(0, x, x);
        Value ex = g.expand(g.reduceSum(x, true, 0), 4, 3, 4);
        Value idx = g.constant(Tensor.of(new long[] {0, 2, 1}, 3));
        Value ga = g.gather(x, idx, 1);
        Value sa = g.scatterAdd(x, g.constant(Tensor.of(new int[] {1, 0, 2, 0, 1, 1, 0, 2}, 2, 1, 4)),
                g.input("upd", f32(2, 1, 4)), 1);
        Value q = g.input("q", f32(1, 5, 8));
        Value kv = g.input("kv", f32(1, 6, 4));
        Value att = g.attention(q, kv, kv, g.input("mask", Shape.of(DType.BOOL, 5, 6)),
                Op.Attention.of(2, 1, 4).slidingWindow(3).withSoftcap(20f));
        Value rope = g.rope(q, g.constant(Tensor.of(new float[10], 5, 2)), g.constant(Tensor.of(new float[10], 5, 2)),
                new Op.Rope(4, 4, true, HeadLayout.BSHD));
        Op.PagedAttention paged = Op.PagedAttention.of(4, 2, 32, 4, BlockFormat.Q5_0).withScale(0.25f);
        Value pagedOut = g.pagedAttention(g.input("pq", f32(3, 4, 32)),
                g.input("pool", Shape.of(DType.U8, 5, paged.blockBytes())),
                g.input("spill", Shape.of(DType.U8, 0, paged.blockBytes())),
                g.input("table", Shape.of(DType.I32, 2, 3)), g.input("kv_lens", Shape.of(DType.I32, 2)),
                g.input("query_offsets", Shape.of(DType.I32, 3)), paged);
        Value qmm = g.quantMatMul(g.input("qx", f32(3, 64)), g.input("qw", Shape.of(DType.U8, 5, 68)), // 2 Q8_0 blocks
                dev.rlx.ir.quant.WeightFormat.Q8_0);
        Value img = g.input("img", f32(1, 2, 6, 6));
        Value conv = g.conv(img, g.param("k", f32(4, 1, 3, 3)), g.param("kb", f32(4)),
                Op.Conv.of(2).withStrides(2, 1).withPads(1, 0, 1, 2).withGroups(2));
        Value ct = g.convTranspose(conv, g.param("kt", f32(4, 1, 2, 2)), null,
                Op.ConvTranspose.of(2).withStrides(2, 2).withOutputPadding(1, 0));
        Value spectrum = g.fft(x, FftKind.R2C, -1, FftNorm.ORTHO, 4);
        Value pool = g.pool(ct, Op.Pool.of(Op.Pool.Kind.AVG, 2, 2).withPads(1, 1).withCeilMode(true)
                .withCountIncludePad(false));

        Graph then = new Graph("then");
        then.setOutputs(then.name(then.tanh(then.input("a", f32(2, 3, 4))), "inner"));
        Graph other = new Graph("else");
        Value oa = other.input("a", f32(2, 3, 4));
        other.setOutputs(other.neg(oa));
        Value pred = g.input("pred", Shape.of(DType.BOOL, 1));
        Value iff = g.ifElse(pred, then, other, x).get(0);

        Graph cond = ControlFlowShapeTest.lessThan("cond", 100f, f32(2, 3, 4), Shape.scalar(DType.I32));
        Graph body = new Graph("body");
        Value bc = body.input("c", f32(2, 3, 4));
        Value bi = body.input("i", Shape.scalar(DType.I32));
        // nested control flow inside the body
        Value inner = body.ifElse(body.lt(bi, body.scalar(DType.I32, 3)), then, other, bc).get(0);
        body.setOutputs(body.add(inner, bc), body.add(bi, body.scalar(DType.I32, 1)));
        List<Value> loop = g.whileLoop(cond, body, 10, x, g.scalar(DType.I32, 0));

        Value scanned = g.scan(ControlFlowShapeTest.scanBody(), 4, 1, true, g.input("carry", f32(2)),
                g.input("xs", f32(4, 3))).get(1);
        List<Value> custom = g.custom("fancy", everyAttrType(), List.of(f32(3), Shape.of(DType.C64, 1)), x, sc);

        // fusion products
        ElementwiseProgram prog = ElementwiseProgram.builder(2).binary(BinaryKind.MUL, 0, 1)
                .unary(UnaryKind.GELU, 2).build();
        Value fused = g.apply1(new Op.Fused(prog), x, g.input("row", f32(4)));
        // where(x < row, x * row, x): the mask steps
        ElementwiseProgram masked = ElementwiseProgram.builder(2).compare(CompareKind.LT, 0, 1)
                .binary(BinaryKind.MUL, 0, 1).select(2, 3, 0).build();
        fused = g.apply1(new Op.Fused(masked), fused, g.input("row2", f32(4)));
        Value fmm = g.apply1(new Op.FusedMatMul(prog), g.input("fa", f32(3, 5)), g.param("fw", f32(5, 4)),
                g.param("fb", f32(4)));
        List<Value> addNorm = g.apply(new Op.AddNorm(true, 2, 1e-6f), x, fused, g.param("ang", f32(4)));
        Value noise = g.rngNormal(0.5f, 2f, f32(2, 3), 7);
        Value uniform = g.rngUniform(-1f, 1f, Shape.of(DType.F64, 4));

        g.setOutputs(cast, red, am, sm, lsm, cs, tk.get(0), tk.get(1), ln, rn, gn, rs, tr, sl, cat, ex, ga, sa, att,
                pagedOut, rope, pool, spectrum, iff, loop.get(0), loop.get(1), scanned, custom.get(0), custom.get(1), fmm,
                addNorm.get(0), addNorm.get(1), noise, uniform, qmm);
        return g;
    }
}
