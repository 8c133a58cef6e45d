package dev.rlx.testkit.cases;

import static dev.rlx.testkit.cases.Shapes.f32;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.rlx.ir.Attrs;
import dev.rlx.ir.DType;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.OpRegistry;
import dev.rlx.testkit.OpCase;
import dev.rlx.testkit.OpFamily;
import dev.rlx.testkit.Tolerance;
import java.util.List;

/**
 * Custom ops inside a graph: the reference runs the op's CPU kernel, so these check how a backend hands a
 * custom op its operands and takes its outputs (attributes, several outputs, ops around it). A backend without
 * a kernel of its own for these names skips them.
 */
final class CustomCases {
    private CustomCases() {}

    /** {@code clip(x, lo, hi)} with the bounds as attributes. */
    static final String CLIP = "testkit_clip";
    /** The minimum and the maximum of x, as two one-element outputs. */
    static final String MIN_MAX = "testkit_min_max";

    /** Registers both ops and their CPU kernels in {@link OpRegistry#global()} (idempotent). */
    static synchronized void register() {
        OpRegistry r = OpRegistry.global();
        if (r.kernel(CLIP, Device.CPU).isPresent()) {
            return;
        }
        r.register(CLIP, (in, a) -> List.of(in.get(0)), Device.CPU, (in, out, a) -> {
            float lo = (float) a.getDouble("lo");
            float hi = (float) a.getDouble("hi");
            for (long i = 0; i < in.get(0).size(); i++) {
                float v = in.get(0).data().getAtIndex(JAVA_FLOAT, i);
                out.get(0).data().setAtIndex(JAVA_FLOAT, i, Math.min(hi, Math.max(lo, v)));
            }
        });
        r.declarePure(CLIP);
        r.register(MIN_MAX, (in, a) -> List.of(Shape.of(DType.F32, 1), Shape.of(DType.F32, 1)), Device.CPU, (in, out, a) -> {
            float mn = Float.POSITIVE_INFINITY;
            float mx = Float.NEGATIVE_INFINITY;
            for (long i = 0; i < in.get(0).size(); i++) {
                float v = in.get(0).data().getAtIndex(JAVA_FLOAT, i);
                mn = Math.min(mn, v);
                mx = Math.max(mx, v);
            }
            out.get(0).data().setAtIndex(JAVA_FLOAT, 0, mn);
            out.get(1).data().setAtIndex(JAVA_FLOAT, 0, mx);
        });
    }

    static OpFamily family() {
        register();
        Tolerance exact = Tolerance.exact("the kernel's own f32 values, through exact ops");
        return new OpFamily("custom", List.of(
                OpCase.named("custom_clipWithAttributes_insideAGraph")
                        .graph(g -> {
                            Value x = g.input("x", f32(5, 7));
                            Value y = OpRegistry.global().apply(g, CLIP, Attrs.of("lo", -1.0, "hi", 2.0),
                                    g.mul(x, g.scalar(2f))).get(0);
                            g.setOutputs(g.add(y, g.scalar(1f)));
                        })
                        .tolerance(DType.F32, Tolerance.of(0, 1e-7, "x * 2 and + 1 rounded in f32"))
                        .build(),
                OpCase.named("custom_twoOutputs_fromTheShapeFunction")
                        .graph(g -> g.setOutputs(OpRegistry.global().apply(g, MIN_MAX, Attrs.EMPTY, g.input("x", f32(3, 11)))))
                        .tolerance(DType.F32, exact)
                        .build()));
    }
}
