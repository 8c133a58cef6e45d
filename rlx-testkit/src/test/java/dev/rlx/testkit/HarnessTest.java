package dev.rlx.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.testkit.reference.ReferenceInterpreter;
import dev.rlx.testkit.reference.TensorData;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/** The harness itself: failures name the case, output, index and both values; skips report their reason. */
class HarnessTest {
    private static final ReferenceInterpreter REF = new ReferenceInterpreter();

    private static OpCase addCase() {
        return OpCase.named("add_f32_3x4")
                .graph(g -> g.setOutputs(g.add(g.input("a", Shape.of(DType.F32, 3, 4)), g.input("b", Shape.of(DType.F32, 4))),
                        g.cast(g.input("i", Shape.of(DType.I32, 2)), DType.I64)))
                .data("i", Data.ints(-5, 5))
                .build();
    }

    /** A runner returning the reference's outputs with element {@code flat} of output {@code output} changed. */
    private static GraphRunner perturbing(int output, int flat, double delta) {
        return (g, data) -> {
            List<Tensor> out = new ArrayList<>(REF.run(g, data));
            Tensor t = out.get(output);
            if (t.dtype().isInteger()) {
                long[] v = TensorData.longs(t);
                v[flat] += (long) delta;
                out.set(output, TensorData.ofLongs(t.shape(), v));
            } else {
                double[] v = TensorData.doubles(t);
                v[flat] += delta;
                out.set(output, TensorData.of(t.shape(), v));
            }
            return out;
        };
    }

    @Test
    void matchingOutputs_pass() {
        assertDoesNotThrow(() -> CaseCheck.verify(addCase(), REF::run, REF));
    }

    @Test
    void aFloatMismatch_namesCaseOutputIndexAndBothValues() {
        AssertionFailedError e = assertThrows(AssertionFailedError.class,
                () -> CaseCheck.verify(addCase(), perturbing(0, 6, 0.01), REF));
        String m = e.getMessage();
        assertTrue(m.startsWith("case add_f32_3x4: output 0 f32[3,4]"), m);
        assertTrue(m.contains("1 of 12 values differ; worst at [1, 2] (flat 6)"), m);
        double expected = TensorData.doubles(REF.run(addCase().instantiate().graph(), addCase().instantiate().data()).get(0))[6];
        assertTrue(m.contains("expected " + expected + " but got " + (double) (float) (expected + 0.01)), m);
        assertTrue(m.contains("a few f32 roundings"), "the tolerance and its reason: " + m);
    }

    @Test
    void anIntegerMismatch_isReportedExactly() {
        AssertionFailedError e = assertThrows(AssertionFailedError.class,
                () -> CaseCheck.verify(addCase(), perturbing(1, 1, 1), REF));
        assertTrue(e.getMessage().contains("output 1 i64[2]: 1 of 2 values differ; first at [1] (flat 1)"), e.getMessage());
    }

    @Test
    void aWrongOutputCount_fails() {
        AssertionFailedError e = assertThrows(AssertionFailedError.class,
                () -> CaseCheck.verify(addCase(), (g, d) -> REF.run(g, d).subList(0, 1), REF));
        assertTrue(e.getMessage().contains("expected 2 outputs but got 1"), e.getMessage());
    }

    @Test
    void exactTolerance_tellsNegativeZeroFromZero_andNaNMatchesNaN() {
        Shape s = Shape.of(DType.F32, 3);
        Tolerance exact = Tolerance.exact("test");
        Tensor a = TensorData.of(s, new double[] {0.0, Double.NaN, 1});
        Tensor b = TensorData.of(s, new double[] {-0.0, Double.NaN, 1});
        assertTrue(OutputComparison.compare(a, b, exact).isPresent());
        assertEquals(Optional.empty(), OutputComparison.compare(a, a, exact));
        Tolerance loose = Tolerance.of(1, 1, "test");
        assertEquals(Optional.empty(), OutputComparison.compare(a, b, loose), "-0 and 0 are within any bound");
        Tensor inf = TensorData.of(s, new double[] {0.0, Double.NaN, Double.POSITIVE_INFINITY});
        assertTrue(OutputComparison.compare(a, inf, loose).isPresent(), "an infinity must match exactly");
        Tensor nan = TensorData.of(s, new double[] {Double.NaN, Double.NaN, 1});
        assertTrue(OutputComparison.compare(a, nan, loose).isPresent(), "NaN matches only NaN");
    }

    @Test
    void spectralTolerance_scalesWithTheRmsOfTheExpectedOutput() {
        Shape s = Shape.of(DType.F64, 2, 2);
        Tensor e = TensorData.of(s, new double[] {3, 4, 0, 0}); // rms per complex value: sqrt(25 / 2)
        Tolerance t = Tolerance.spectral(0.1, "test");
        double bound = 0.1 * Math.sqrt(12.5);
        assertEquals(Optional.empty(), OutputComparison.compare(e, TensorData.of(s, new double[] {3, 4, bound * 0.99, 0}), t));
        assertTrue(OutputComparison.compare(e, TensorData.of(s, new double[] {3, 4, bound * 1.01, 0}), t).isPresent());
    }

    @Test
    void aShapeMismatch_isReported() {
        Optional<String> f = OutputComparison.compare(TensorData.of(Shape.of(DType.F32, 2), new double[2]),
                TensorData.of(Shape.of(DType.F32, 1, 2), new double[2]), Tolerance.of(0, 0, "test"));
        assertEquals(Optional.of("expected f32[2] but the backend returned f32[1,2]"), f);
    }

    @Test
    void caseData_isTheSameEveryTime_andNeverZero() {
        OpCase c = OpCase.named("data").graph(g -> g.setOutputs(g.neg(g.input("x", Shape.of(DType.F16, 5000))))).build();
        double[] a = TensorData.doubles(c.instantiate().data().get("x"));
        assertArrayEquals(a, TensorData.doubles(c.instantiate().data().get("x")));
        for (double v : a) {
            assertNotEquals(0.0, v);
            assertTrue(v >= -1 && v < 1, "in [-1, 1): " + v);
        }
        OpCase other = OpCase.named("data2").graph(g -> g.setOutputs(g.neg(g.input("x", Shape.of(DType.F16, 5000))))).build();
        assertNotEquals(a[0], TensorData.doubles(other.instantiate().data().get("x"))[0], "seeded by the name");
    }

    @Test
    void dataForASlotTheGraphLacks_isRejected() {
        OpCase c = OpCase.named("typo").graph(g -> g.setOutputs(g.neg(g.input("x", Shape.of(DType.F32, 2)))))
                .data("y", Data.standard()).build();
        IllegalStateException e = assertThrows(IllegalStateException.class, c::instantiate);
        assertTrue(e.getMessage().contains("'y'"), e.getMessage());
    }

    @Test
    void integerOutputs_areAlwaysExact() {
        Tolerances t = Tolerances.defaults();
        assertTrue(t.of(DType.I32).exact());
        assertThrows(IllegalArgumentException.class, () -> t.with(DType.U8, Tolerance.of(1, 1, "no")));
    }

    /** A case a runner skips becomes an aborted test carrying the reason, not a pass. */
    @Test
    void skippedCases_abortWithTheirReason() throws Throwable {
        ConformanceSuite suite = new ConformanceSuite() {
            @Override
            protected GraphRunner runner() {
                return REF::run;
            }

            @Override
            protected ReferenceInterpreter reference() {
                return REF;
            }

            @Override
            protected List<OpFamily> families() {
                return List.of(new OpFamily("tiny", List.of(addCase())));
            }

            @Override
            protected String skipReason(OpCase c) {
                return "no adder on this device";
            }
        };
        DynamicNode family = suite.opCases().findFirst().orElseThrow();
        DynamicTest test = (DynamicTest) ((DynamicContainer) family).getChildren().findFirst().orElseThrow();
        assertEquals("add_f32_3x4", test.getDisplayName());
        TestAbortedException e = assertThrows(TestAbortedException.class, () -> test.getExecutable().execute());
        assertTrue(e.getMessage().contains("no adder on this device"), e.getMessage());
    }
}
