package dev.rlx.ir;

import static dev.rlx.ir.Check.f32;
import static dev.rlx.ir.Check.in;
import static dev.rlx.ir.Check.out;
import static dev.rlx.ir.Check.rejects;
import static dev.rlx.ir.Check.s;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rlx.ir.Op.PagedAttention;
import dev.rlx.ir.quant.BlockFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The paged attention op's attributes, block geometry and every operand's shape rule. */
class PagedAttentionShapeTest {
    /** 8 query heads over 2 kv heads of 32, 4-token blocks of Q8_0: 34-byte rows, 2 x 2 x 4 x 34 = 544 bytes. */
    private static final PagedAttention SPEC = PagedAttention.of(8, 2, 32, 4, BlockFormat.Q8_0);

    private static Shape q(int t) {
        return f32(t, 8, 32);
    }

    private static Shape pool(int slots) {
        return s(DType.U8, slots, 544);
    }

    @Test
    void blockGeometry_followsTheStorageFormat() {
        assertEquals(34, SPEC.headRowBytes());
        assertEquals(2 * 4 * 34, SPEC.keysBytes());
        assertEquals(544, SPEC.blockBytes());
        PagedAttention f16 = PagedAttention.of(3, 3, 5, 7, BlockFormat.F16); // odd sizes: no block constraint
        assertEquals(10, f16.headRowBytes());
        assertEquals(2 * 3 * 7 * 10, f16.blockBytes());
        assertEquals((float) (1 / Math.sqrt(32)), SPEC.scale());
        assertEquals(0.5f, SPEC.withScale(0.5f).scale());
    }

    @Test
    void outputHasTheQueriesShape() {
        Shape table = s(DType.I32, 3, 5);
        assertEquals(q(7), out(SPEC, q(7), pool(9), pool(0), table, s(DType.I32, 3), s(DType.I32, 4)));
        assertEquals(q(1), out(SPEC, q(1), pool(1), pool(2), s(DType.I32, 1, 1), s(DType.I32, 1), s(DType.I32, 2)));
    }

    @Test
    void builder_addsOneNodeOfKindPagedAttention() {
        Graph g = new Graph("paged");
        Value y = g.pagedAttention(in(g, q(6)), in(g, pool(4)), in(g, pool(0)), in(g, DType.I32, 2, 3),
                in(g, DType.I32, 2), in(g, DType.I32, 3), SPEC);
        assertEquals(q(6), y.shape());
        assertEquals(OpKind.PAGED_ATTENTION, y.node().kind());
        assertEquals("paged_attention", y.node().op().label());
        assertEquals(SPEC, y.node().op());
    }

    @Test
    void everyOperand_isCheckedAndNamed() {
        Graph g = new Graph("paged");
        Value qv = in(g, q(6));
        Value p = in(g, pool(4));
        Value sp = in(g, pool(0));
        Value t = in(g, DType.I32, 2, 3);
        Value l = in(g, DType.I32, 2);
        Value o = in(g, DType.I32, 3);
        Value qHalf = in(g, DType.F16, 6, 8, 32);
        Value qHeads = in(g, f32(6, 4, 32));
        Value qFlat = in(g, f32(6, 256));
        Value poolRow = in(g, DType.U8, 4, 543);
        Value poolI8 = in(g, DType.I8, 4, 544);
        Value poolFlat = in(g, DType.U8, 2176);
        Value spillHalfBlock = in(g, DType.U8, 0, 272);
        Value tableI64 = in(g, DType.I64, 2, 3);
        Value tableFlat = in(g, DType.I32, 6);
        Value lens3 = in(g, DType.I32, 3);
        Value lensF32 = in(g, DType.F32, 2);
        Value offsets2 = in(g, DType.I32, 2);
        Value offsets2d = in(g, DType.I32, 1, 3);
        String op = "paged_attention";
        rejects(g, op, () -> g.pagedAttention(qHalf, p, sp, t, l, o, SPEC),
                "q must be f32 [T, numHeads=8, headDim=32]", "f16[6,8,32]");
        rejects(g, op, () -> g.pagedAttention(qHeads, p, sp, t, l, o, SPEC), "q", "f32[6,4,32]");
        rejects(g, op, () -> g.pagedAttention(qFlat, p, sp, t, l, o, SPEC), "q", "f32[6,256]");
        rejects(g, op, () -> g.pagedAttention(qv, poolRow, sp, t, l, o, SPEC),
                "pool must be u8 [slots, blockBytes=544]", "34-byte Q8_0 rows", "u8[4,543]");
        rejects(g, op, () -> g.pagedAttention(qv, poolI8, sp, t, l, o, SPEC), "pool", "i8[4,544]");
        rejects(g, op, () -> g.pagedAttention(qv, poolFlat, sp, t, l, o, SPEC), "pool", "u8[2176]");
        rejects(g, op, () -> g.pagedAttention(qv, p, spillHalfBlock, t, l, o, SPEC),
                "spill must be u8 [slots, blockBytes=544]", "u8[0,272]");
        rejects(g, op, () -> g.pagedAttention(qv, p, sp, tableI64, l, o, SPEC),
                "blockTable must be i32 [S, maxBlocks]", "i64[2,3]");
        rejects(g, op, () -> g.pagedAttention(qv, p, sp, tableFlat, l, o, SPEC), "blockTable", "i32[6]");
        rejects(g, op, () -> g.pagedAttention(qv, p, sp, t, lens3, o, SPEC), "kvLens must be i32 [S=2]", "i32[3]");
        rejects(g, op, () -> g.pagedAttention(qv, p, sp, t, lensF32, o, SPEC), "kvLens", "f32[2]");
        rejects(g, op, () -> g.pagedAttention(qv, p, sp, t, l, offsets2, SPEC),
                "queryOffsets must be i32 [S+1=3]", "i32[2]");
        rejects(g, op, () -> g.pagedAttention(qv, p, sp, t, l, offsets2d, SPEC), "queryOffsets", "i32[1,3]");
        rejects(op, () -> SPEC.outputShapes(java.util.List.of(q(6), pool(4))), "expected 6 inputs");
    }

    @Test
    void attributes_rejected() {
        rejects("paged_attention", () -> PagedAttention.of(6, 4, 32, 4, BlockFormat.F32), "numHeads 6", "kvHeads 4");
        rejects("paged_attention", () -> PagedAttention.of(0, 1, 32, 4, BlockFormat.F32), "numHeads");
        rejects("paged_attention", () -> PagedAttention.of(2, 0, 32, 4, BlockFormat.F32), "kvHeads");
        rejects("paged_attention", () -> PagedAttention.of(2, 1, 0, 4, BlockFormat.F32), "headDim");
        rejects("paged_attention", () -> PagedAttention.of(2, 1, 32, 0, BlockFormat.F32), "tokensPerBlock");
        rejects("paged_attention", () -> PagedAttention.of(2, 1, 1 << 20, 1 << 12, BlockFormat.F32), "exceeds 2^31-1");
    }

    @ParameterizedTest
    @EnumSource(value = BlockFormat.class, names = {"Q8_0", "Q5_0", "Q4_0"})
    void quantizedStorage_needsWholeBlocksPerHeadRow(BlockFormat f) {
        rejects("paged_attention", () -> PagedAttention.of(2, 1, 48, 4, f), "headDim 48", f.name(), "32-value blocks");
        assertEquals(64 / 32 * f.blockBytes(), PagedAttention.of(2, 1, 64, 4, f).headRowBytes());
    }

    @ParameterizedTest
    @ValueSource(floats = {0f, -1f, Float.NaN, Float.POSITIVE_INFINITY})
    void badScale_rejected(float scale) {
        rejects("paged_attention", () -> SPEC.withScale(scale), "scale");
    }
}
