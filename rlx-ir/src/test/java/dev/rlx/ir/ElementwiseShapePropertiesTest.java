package dev.rlx.ir;

import static dev.rlx.ir.Check.f32;
import static dev.rlx.ir.Check.in;
import static dev.rlx.ir.Check.referenceBroadcast;
import static dev.rlx.ir.Check.rejects;
import static dev.rlx.ir.Check.s;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Broadcasting properties of binary, compare and where against an independent reference. (jqwik properties
 * live in their own classes: surefire writes one report per class and engine, so a class mixing JUnit
 * Jupiter and jqwik tests would get its report overwritten by the second engine.)
 */
class ElementwiseShapePropertiesTest {
    @Provide
    Arbitrary<int[][]> broadcastablePair() {
        // A target shape, then each operand keeps a suffix of it with some dims replaced by 1.
        Arbitrary<int[]> target = Arbitraries.integers().between(0, 4).array(int[].class).ofMaxSize(4);
        return target.flatMap(t -> Combinators.combine(operandOf(t), operandOf(t)).as((p, q) -> new int[][] {p, q}));
    }

    private static Arbitrary<int[]> operandOf(int[] target) {
        return Combinators.combine(Arbitraries.integers().between(0, target.length),
                Arbitraries.integers().between(0, 1).array(int[].class).ofSize(target.length)).as((drop, ones) -> {
            int[] d = Arrays.copyOfRange(target, drop, target.length);
            for (int i = 0; i < d.length; i++) {
                if (ones[i + drop] == 1) {
                    d[i] = 1;
                }
            }
            return d;
        });
    }

    @Property(tries = 300)
    void binary_broadcast_matchesReference_bothDirections(@ForAll("broadcastablePair") int[][] pair) {
        int[] expected = referenceBroadcast(pair[0], pair[1]);
        Graph g = new Graph("b");
        Value x = in(g, f32(pair[0]));
        Value y = in(g, f32(pair[1]));
        assertEquals(f32(expected), g.add(x, y).shape());
        assertEquals(f32(expected), g.add(y, x).shape());
        assertEquals(s(DType.BOOL, expected), g.lt(y, x).shape());
    }

    @Property(tries = 300)
    void binary_randomShapes_acceptedExactlyWhenReferenceBroadcasts(
            @ForAll("smallDims") int[] a, @ForAll("smallDims") int[] b) {
        int[] expected = referenceBroadcast(a, b);
        Graph g = new Graph("b");
        Value x = in(g, f32(a));
        Value y = in(g, f32(b));
        if (expected == null) {
            rejects(g, "max", () -> g.max(x, y), f32(a).toString(), f32(b).toString());
        } else {
            assertEquals(f32(expected), g.max(x, y).shape());
        }
    }

    @Provide
    Arbitrary<int[]> smallDims() {
        return Arbitraries.integers().between(0, 3).array(int[].class).ofMaxSize(4);
    }

    @Property(tries = 200)
    void where_threeWayBroadcast_matchesReference(@ForAll("smallDims") int[] c, @ForAll("smallDims") int[] a,
                                                  @ForAll("smallDims") int[] b) {
        int[] expected = referenceBroadcast(c, a, b);
        Graph g = new Graph("w");
        Value vc = in(g, s(DType.BOOL, c));
        Value va = in(g, f32(a));
        Value vb = in(g, f32(b));
        if (expected == null) {
            rejects(g, "where", () -> g.where(vc, va, vb), "broadcast", vc.shape().toString(), va.shape().toString(),
                    vb.shape().toString());
        } else {
            assertEquals(f32(expected), g.where(vc, va, vb).shape());
        }
    }
}
