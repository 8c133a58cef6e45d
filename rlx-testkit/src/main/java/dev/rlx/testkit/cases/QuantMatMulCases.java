package dev.rlx.testkit.cases;

import dev.rlx.ir.DType;
import dev.rlx.ir.HalfFloats;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.quant.WeightFormat;
import dev.rlx.testkit.Data;
import dev.rlx.testkit.OpCase;
import dev.rlx.testkit.OpFamily;
import dev.rlx.testkit.Tolerance;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code Op.QuantMatMul} in every weight format: one row of x (a decode step), a few rows and a batched x, odd
 * output counts. Weights of writable formats are random floats quantised by ggml's reference quantisers;
 * K-quant blocks are random bytes with small finite scales. The reference decodes the same bytes, so the only
 * error is f32 accumulation against double over K products of values about 1.
 */
final class QuantMatMulCases {
    private QuantMatMulCases() {}

    static OpFamily family() {
        List<OpCase> c = new ArrayList<>();
        for (WeightFormat f : WeightFormat.values()) {
            int k = f.blockElems() == 256 ? 256 : f.blockElems() == 32 ? 64 : 37;
            c.add(qmm(f, new int[] {1, k}, 7, "_decode"));
            c.add(qmm(f, new int[] {2, 3, k}, 13, "_batched"));
        }
        return new OpFamily("quant_matmul", c);
    }

    private static OpCase qmm(WeightFormat f, int[] xDims, int n, String suffix) {
        int k = xDims[xDims.length - 1];
        int rowBytes = (int) f.rowBytes(k);
        String name = "quantMatMul_" + f.name().toLowerCase(Locale.ROOT) + "_n" + n + suffix;
        return OpCase.named(name)
                .graph(g -> g.setOutputs(g.quantMatMul(g.input("x", Shape.of(DType.F32, xDims)),
                        g.input("w", Shape.of(DType.U8, n, rowBytes)), f)))
                .data("x", Data.uniform(-1, 1))
                .data("w", (shape, r) -> {
                    byte[] bytes = new byte[Math.toIntExact(shape.byteSize())];
                    MemorySegment seg = MemorySegment.ofArray(bytes);
                    if (f.encodable()) {
                        float[] row = new float[k];
                        for (int j = 0; j < n; j++) {
                            for (int i = 0; i < k; i++) {
                                row[i] = r.nextFloat() * 2 - 1;
                            }
                            f.encode(row, 0, seg, (long) j * rowBytes, k);
                        }
                    } else {
                        r.nextBytes(bytes);
                        ByteBuffer bb = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
                        for (int o = 0; o < bytes.length; o += f.blockBytes()) {
                            short d = HalfFloats.toF16(r.nextFloat() * 0.01f + 1e-4f);
                            switch (f) {
                                case Q4_K, Q5_K -> bb.putShort(o, d).putShort(o + 2, d);
                                case Q6_K -> bb.putShort(o + 208, d);
                                default -> bb.putFloat(o, r.nextFloat() * 0.01f + 1e-4f); // Q8_K's f32 scale
                            }
                        }
                    }
                    return Tensor.ofBytes(shape, bytes);
                })
                .tolerance(DType.F32, Tolerance.of(2e-5, 1e-5, "f32 products summed against double over K <= 256"))
                .build();
    }
}
