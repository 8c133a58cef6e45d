package dev.rlx.testkit.cases;

import static dev.rlx.testkit.cases.Shapes.of;
import static dev.rlx.testkit.cases.Shapes.t;

import dev.rlx.ir.DType;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.testkit.OpCase;
import dev.rlx.testkit.OpFamily;
import dev.rlx.testkit.Tolerance;
import java.util.ArrayList;
import java.util.List;

/**
 * RngNormal and RngUniform pinned to the streams the compile's RngOptions define (by default Philox with seed
 * 42, first run): nodes with and without their own seed, several nodes (independent streams keyed by node),
 * sizes that are not a multiple of a Philox block, every float dtype. The values come from the same counter
 * words; only the last bits of the double log/cos/sin may differ, which can flip one f32 rounding.
 */
final class RngCases {
    private RngCases() {}

    static OpFamily family() {
        List<OpCase> c = new ArrayList<>();
        Tolerance f32 = Tolerance.of(1e-6, 1e-6, "double log, cos and sin may differ in their last bit and flip one f32 rounding");
        for (DType t : new DType[] {DType.F32, DType.F64, DType.F16, DType.BF16}) {
            c.add(OpCase.named("rng_normalAndUniform_" + t(t) + "_3x50001")
                    .graph(g -> {
                        Shape s = of(t, 3, 50_001); // not a multiple of a block of 4 or of a part
                        g.setOutputs(g.rngNormal(0f, 1f, s), g.rngUniform(0f, 1f, s));
                    })
                    .tolerance(DType.F32, f32)
                    .tolerance(DType.F64, Tolerance.of(1e-12, 1e-12, "double log, cos and sin in their last bits"))
                    .tolerance(DType.F16, Tolerance.of(0, 1e-3, "a flipped f16 rounding at worst"))
                    .tolerance(DType.BF16, Tolerance.of(0, 8e-3, "a flipped bf16 rounding at worst"))
                    .build());
        }
        c.add(OpCase.named("rng_seededAndUnseededNodes_f32")
                .graph(g -> {
                    Shape s = of(DType.F32, 7, 13);
                    Value x = g.input("x", s);
                    g.setOutputs(g.add(x, g.rngNormal(2f, 0.5f, s)), g.rngNormal(0f, 1f, s, 5), g.rngNormal(0f, 1f, s, 5),
                            g.rngUniform(-1f, 3f, s, 77), g.rngUniform(-1f, 3f, of(DType.F32, 1)));
                })
                .tolerance(DType.F32, f32)
                .build());
        c.add(OpCase.named("rng_uniformScalarAndSizeOne_f32")
                .graph(g -> g.setOutputs(g.rngUniform(5f, 5.5f, of(DType.F32)), g.rngNormal(-3f, 2f, of(DType.F32, 1, 1))))
                .tolerance(DType.F32, f32)
                .build());
        return new OpFamily("rng", c);
    }
}
