package dev.rlx.testkit.cases;

import static dev.rlx.testkit.cases.Shapes.dims;
import static dev.rlx.testkit.cases.Shapes.f32;
import static dev.rlx.testkit.cases.Shapes.of;
import static dev.rlx.testkit.cases.Shapes.t;

import dev.rlx.ir.DType;
import dev.rlx.ir.Op;
import dev.rlx.ir.Value;
import dev.rlx.testkit.Data;
import dev.rlx.testkit.OpCase;
import dev.rlx.testkit.OpFamily;
import dev.rlx.testkit.Tolerance;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Softmax, log-softmax, layer, RMS and group norms and the fused residual add + norm.
 *
 * <p>Tolerances (f32): softmax values are an exp of a rounded argument times a rounded reciprocal sum, a few
 * ulps: rtol 1e-5 with atol 1e-8 (values go down to ~1e-5 on 32000-wide rows, so atol stays tiny). Log-softmax
 * values are differences of magnitude up to ~15 rounded in float: atol 1e-5. Norm outputs (magnitude <= ~5)
 * carry the float rounding of {@code (x - mean) * rstd * gamma + beta}: 1e-5 both ways.
 */
final class NormCases {
    private NormCases() {}

    static final Tolerance SOFTMAX = Tolerance.of(1e-8, 1e-5, "exp of a rounded argument times a rounded reciprocal sum");
    static final Tolerance LOG_SOFTMAX = Tolerance.of(1e-5, 1e-6, "differences of magnitude up to ~15 rounded in f32");
    static final Tolerance NORM = Tolerance.of(1e-5, 1e-5, "(x - mean) * rstd * gamma + beta rounded in f32");
    static final Tolerance F64 = Tolerance.of(1e-12, 1e-12, "double");

    static OpFamily family() {
        List<OpCase> c = new ArrayList<>();
        softmax(c);
        layerAndRms(c);
        groupNorm(c);
        addNorm(c);
        return new OpFamily("norm", c);
    }

    // ---------------------------------------------------------------- softmax

    private static OpCase softmax(String suffix, boolean log, DType t, int[] d, int axis, Data data, Tolerance tol) {
        return OpCase.named((log ? "logSoftmax_" : "softmax_") + t(t) + "_" + dims(d) + "_axis" + axis + suffix)
                .graph(g -> {
                    Value x = g.input("x", of(t, d));
                    g.setOutputs(log ? g.logSoftmax(x, axis) : g.softmax(x, axis));
                })
                .data("x", data)
                .tolerance(t, tol)
                .build();
    }

    private static void softmax(List<OpCase> c) {
        Data x = Data.uniform(-3, 3);
        c.add(softmax("", false, DType.F32, new int[] {5, 37}, -1, x, SOFTMAX));
        for (int axis : new int[] {1, 0, -2}) {
            c.add(softmax("", false, DType.F32, new int[] {4, 6, 5}, axis, x, SOFTMAX));
        }
        // without the max shift exp(1000) overflows
        c.add(softmax("_largeLogitsAreStable", false, DType.F32, new int[] {3, 40}, 1, Data.uniform(900, 1000), SOFTMAX));
        c.add(softmax("_largeLogitsAreStable", false, DType.F32, new int[] {3, 40}, 0, Data.uniform(900, 1000), SOFTMAX));
        c.add(softmax("_oneElementIsOne", false, DType.F32, new int[] {3, 1}, 1, Data.standard(),
                Tolerance.exact("exp(0) / exp(0) is exactly 1")));
        c.add(softmax("_empty", false, DType.F32, new int[] {3, 0}, 1, Data.standard(), SOFTMAX));
        c.add(softmax("_empty", true, DType.F32, new int[] {0, 3}, 1, Data.standard(), LOG_SOFTMAX));
        c.add(softmax("_nanPoisonsItsLineOnly", false, DType.F32, new int[] {3, 20}, 1, Data.standard().with(Double.NaN, 24),
                SOFTMAX));
        c.add(softmax("_minusInfinityGivesZero", false, DType.F32, new int[] {3, 20}, 1,
                x.with(Double.NEGATIVE_INFINITY, 2, 25, 26, 59), SOFTMAX));
        c.add(softmax("", false, DType.F64, new int[] {6, 25}, 1, x, F64));
        c.add(softmax("", false, DType.F64, new int[] {6, 25}, 0, x, F64));
        c.add(softmax("", false, DType.F16, new int[] {6, 25}, 1, x, Tolerance.of(1e-4, 1e-3, "one f16 rounding")));
        c.add(softmax("", false, DType.BF16, new int[] {6, 25}, 0, x, Tolerance.of(1e-3, 8e-3, "one bf16 rounding")));
        c.add(softmax("", false, DType.F32, new int[] {64, 32000}, 1, Data.uniform(-5, 5), SOFTMAX));
        c.add(OpCase.named("softmax_f32_transposedOperand_5x33")
                .graph(g -> g.setOutputs(g.softmax(g.transpose(g.input("x", f32(5, 33)), 1, 0), 0)))
                .data("x", x)
                .tolerance(DType.F32, SOFTMAX)
                .build());
        c.add(softmax("", true, DType.F32, new int[] {5, 37}, -1, x, LOG_SOFTMAX));
        c.add(softmax("", true, DType.F32, new int[] {4, 6, 5}, 1, x, LOG_SOFTMAX));
        c.add(softmax("", true, DType.F32, new int[] {4, 6, 5}, 0, x, LOG_SOFTMAX));
        c.add(softmax("", true, DType.F64, new int[] {6, 25}, 1, x, F64));
        c.add(softmax("", true, DType.F16, new int[] {6, 25}, 1, x, Tolerance.of(1e-2, 1e-3, "one f16 rounding of values up to ~6")));
        c.add(softmax("", true, DType.BF16, new int[] {6, 25}, 1, x, Tolerance.of(5e-2, 8e-3, "one bf16 rounding of values up to ~6")));
        c.add(softmax("", true, DType.F32, new int[] {16, 32000}, 1, Data.uniform(-5, 5), LOG_SOFTMAX));
        // rows longer than one summation block (4096) with a tail past the last whole vector (4099 is prime)
        c.add(softmax("_rowsPastOneBlock", false, DType.F32, new int[] {7, 4099}, 1, x, SOFTMAX));
        c.add(softmax("_rowsPastOneBlock", true, DType.F32, new int[] {7, 4099}, 1, x, LOG_SOFTMAX));
        c.add(OpCase.named("softmax_f32_slicedOperand")
                .graph(g -> g.setOutputs(g.softmax(g.slice(g.input("x", f32(8, 61)), 0, 7, 4, -2), 1)))
                .data("x", x)
                .tolerance(DType.F32, SOFTMAX)
                .build());
    }

    // ---------------------------------------------------------------- layer and RMS norm

    private static OpCase trailing(String suffix, boolean layer, DType t, int[] d, int axis, boolean beta, Data data,
                                   Tolerance tol) {
        int a = axis < 0 ? axis + d.length : axis;
        int[] nd = Arrays.copyOfRange(d, a, d.length);
        OpCase.Builder b = OpCase.named((layer ? "layerNorm_" : "rmsNorm_") + t(t) + "_" + dims(d) + "_axis" + axis
                        + (beta ? "_beta" : "") + suffix)
                .graph(g -> {
                    Value x = g.input("x", of(t, d));
                    Value gamma = g.param("gamma", of(t, nd));
                    Value bias = beta ? g.param("beta", of(t, nd)) : null;
                    g.setOutputs(layer ? g.layerNorm(x, gamma, bias, axis, 1e-5f) : g.rmsNorm(x, gamma, bias, axis, 1e-5f));
                })
                .data("x", data)
                .data("gamma", Data.uniform(0.5, 2))
                .tolerance(t, tol);
        return b.build();
    }

    private static void layerAndRms(List<OpCase> c) {
        Data x = Data.uniform(-2, 2);
        Tolerance f16 = Tolerance.of(1e-2, 1e-3, "one f16 rounding of values up to ~5");
        for (boolean layer : new boolean[] {true, false}) {
            c.add(trailing("", layer, DType.F32, new int[] {6, 67}, -1, true, x, NORM));
            c.add(trailing("", layer, DType.F32, new int[] {6, 67}, 1, false, x, NORM));
            c.add(trailing("", layer, DType.F32, new int[] {4, 6, 8}, 1, true, x, NORM));
            c.add(trailing("", layer, DType.F32, new int[] {7, 4099}, 1, true, x, NORM));
            c.add(trailing("", layer, DType.F32, new int[] {7, 4099}, 1, false, x, NORM));
            c.add(trailing("", layer, DType.F64, new int[] {5, 40}, 1, layer, x, F64));
            c.add(trailing("", layer, DType.F16, new int[] {5, 40}, 1, true, x, f16));
            c.add(trailing("", layer, DType.F32, new int[] {256, 4096}, 1, layer, x, NORM));
            c.add(trailing("", layer, DType.F32, new int[] {3, 1, 9}, 1, true, x, NORM));
        }
        c.add(trailing("", true, DType.F32, new int[] {4, 6, 8}, -3, true, x, NORM));
        // values 1000 +- 1: the input itself carries ulp(1000) = 6e-5, which the f32 subtraction of the rounded
        // mean may double: 2e-4 after scaling by ~1.7
        c.add(trailing("_largeOffsetIsStable", true, DType.F32, new int[] {3, 500}, 1, true, Data.uniform(999, 1001),
                Tolerance.of(2e-4, 1e-5, "inputs near 1000 carry ulp(1000) = 6e-5")));
        c.add(trailing("_oneElementLeavesBeta", true, DType.F32, new int[] {5, 1}, 1, true, x, NORM));
        c.add(trailing("", true, DType.BF16, new int[] {5, 40}, 1, false, x, Tolerance.of(5e-2, 8e-3, "one bf16 rounding of values up to ~5")));
        c.add(trailing("", false, DType.BF16, new int[] {5, 40}, 1, true, x, Tolerance.of(5e-2, 8e-3, "one bf16 rounding of values up to ~5")));
        c.add(trailing("_emptyBatch", true, DType.F32, new int[] {0, 8}, 1, false, x, NORM));
        // an odd number of whole vectors (3 at 16 lanes, 7 at 8) past a two-at-a-time loop, then a scalar tail
        c.add(trailing("", false, DType.F32, new int[] {5, 57}, -1, true, x, NORM));
        c.add(trailing("", false, DType.F32, new int[] {3, 4, 10}, 1, true, x, NORM));
    }

    // ---------------------------------------------------------------- group norm

    private static OpCase group(DType t, int[] d, int groups, Tolerance tol) {
        int ch = d[1];
        return OpCase.named("groupNorm_" + t(t) + "_" + dims(d) + "_groups" + groups)
                .graph(g -> g.setOutputs(g.groupNorm(g.input("x", of(t, d)), g.param("gamma", of(t, ch)),
                        g.param("beta", of(t, ch)), groups, 1e-5f)))
                .data("x", Data.uniform(-2, 2))
                .data("gamma", Data.uniform(0.5, 2))
                .tolerance(t, tol)
                .build();
    }

    private static void groupNorm(List<OpCase> c) {
        for (int groups : new int[] {3, 6, 1}) {
            c.add(group(DType.F32, new int[] {2, 6, 4, 5}, groups, NORM));
        }
        c.add(group(DType.F32, new int[] {3, 8}, 4, NORM));
        c.add(group(DType.F64, new int[] {2, 4, 3, 3}, 2, F64));
        c.add(group(DType.F16, new int[] {2, 4, 3, 3}, 2, Tolerance.of(1e-2, 1e-3, "one f16 rounding")));
        c.add(group(DType.BF16, new int[] {2, 4, 3, 3}, 2, Tolerance.of(5e-2, 8e-3, "one bf16 rounding")));
        c.add(group(DType.F32, new int[] {4, 64, 32, 32}, 8, NORM));
        c.add(group(DType.F32, new int[] {1, 10, 7, 3, 5}, 5, NORM));
    }

    // ---------------------------------------------------------------- residual add + norm

    private static void addNorm(List<OpCase> c) {
        for (boolean rms : new boolean[] {true, false}) {
            for (DType t : new DType[] {DType.F32, DType.F64, DType.F16}) {
                int[] d = t == DType.F32 ? new int[] {7, 333} : new int[] {3, 2, 20};
                int axis = 1;
                int[] nd = Arrays.copyOfRange(d, axis, d.length);
                c.add(OpCase.named((rms ? "addRmsNorm_" : "addLayerNorm_") + t(t) + "_" + dims(d))
                        .graph(g -> g.setOutputs(g.apply(new Op.AddNorm(rms, axis, 1e-5f), g.input("x", of(t, d)),
                                g.input("res", of(t, d)), g.param("g", of(t, nd)), g.param("b", of(t, nd)))))
                        .data("x", Data.uniform(-2, 2))
                        .data("res", Data.uniform(-2, 2))
                        .data("g", Data.uniform(0.5, 1.5))
                        .data("b", Data.uniform(-0.5, 0.5))
                        .tolerance(0, Tolerance.exact("the sum is one rounded addition"))
                        .tolerance(1, t == DType.F64 ? F64 : t == DType.F16 ? Tolerance.of(1e-2, 1e-3, "one f16 rounding") : NORM)
                        .build());
            }
        }
        c.add(OpCase.named("addRmsNorm_f32_noBeta_4x129")
                .graph(g -> g.setOutputs(g.apply(new Op.AddNorm(true, 1, 1e-6f), g.input("x", f32(4, 129)),
                        g.input("res", f32(4, 129)), g.param("g", f32(129)))))
                .tolerance(0, Tolerance.exact("the sum is one rounded addition"))
                .tolerance(1, NORM)
                .build());
    }
}
