package dev.rlx.cpu.kernels;

import static dev.rlx.testkit.Close.assertClose;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.testkit.reference.ElementRefs;
import dev.rlx.testkit.reference.Ref;
import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.CompareKind;
import dev.rlx.ir.DType;
import dev.rlx.ir.ElementwiseProgram;
import dev.rlx.ir.UnaryKind;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import java.util.function.DoubleBinaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The generated fused loops against float64 references: every op with a vector form, contiguous and broadcast
 * operands, offsets inside larger segments, and a multi-step program whose values are reused.
 */
class FusedLoopsTest {
    private static final int N = VectorMath.F.loopBound(1031); // whole vectors of a prime length

    private static MemorySegment segment(Arena arena, double[] values, int pad) {
        MemorySegment s = arena.allocate(4L * (values.length + pad), 64);
        for (int i = 0; i < values.length; i++) {
            s.setAtIndex(JAVA_FLOAT, pad + i, (float) values[i]);
        }
        return s;
    }

    private static double[] read(MemorySegment s, long off, int n) {
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = s.getAtIndex(JAVA_FLOAT, off + i);
        }
        return v;
    }

    /** unary(x * c) with c a broadcast scalar 1 (so the input keeps the op's domain), x at an offset of 3. */
    @ParameterizedTest
    @EnumSource(UnaryKind.class)
    void unary_matchesReference(UnaryKind k) {
        if (!k.accepts(DType.F32)) {
            return;
        }
        if (!FusedOps.vectorizes(k)) {
            assertTrue(FusedLoops.of(ElementwiseProgram.builder(1).unary(k, 0).build(), new boolean[1]).isEmpty(),
                    k + " has no vector form, so no loop");
            return;
        }
        ElementwiseProgram p = ElementwiseProgram.builder(2).binary(BinaryKind.MUL, 0, 1).unary(k, 2).build();
        FusedLoop loop = FusedLoops.of(p, new boolean[] {false, true}).orElseThrow();
        Ref x = ElementRefs.inputs(k, new Random(k.ordinal()), N);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment in = segment(arena, x.data(), 3);
            MemorySegment one = segment(arena, new double[] {1}, 5);
            MemorySegment out = arena.allocate(4L * (N + 7), 64);
            loop.run(new MemorySegment[] {in, one}, new long[] {3, 5}, out, 7, N);
            double atol = k == UnaryKind.GELU || k == UnaryKind.ERF ? 5e-7 : 1e-6;
            assertClose(x.map(ElementRefs.ref(k)).data(), read(out, 7, N), atol, 2e-6, k + " through a generated loop");
            assertEquals(0f, out.getAtIndex(JAVA_FLOAT, 6), "nothing written before the output offset");
        }
    }

    @ParameterizedTest
    @EnumSource(value = BinaryKind.class, names = {"ADD", "SUB", "MUL", "DIV", "MAX", "MIN"})
    void binary_contiguousAndBroadcast_matchReference(BinaryKind k) {
        Random r = new Random(k.ordinal());
        Ref a = Ref.random(r, -3, 3, N);
        Ref b = Ref.random(r, 0.5, 3, N).map(v -> r.nextBoolean() ? v : -v);
        double c = -1.75;
        DoubleBinaryOperator f = ElementRefs.ref(k);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sa = segment(arena, a.data(), 0);
            MemorySegment sb = segment(arena, b.data(), 1);
            MemorySegment sc = segment(arena, new double[] {c}, 0);
            MemorySegment out = arena.allocate(4L * N, 64);
            ElementwiseProgram p = ElementwiseProgram.builder(2).binary(k, 0, 1).build();
            FusedLoops.of(p, new boolean[] {false, false}).orElseThrow()
                    .run(new MemorySegment[] {sa, sb}, new long[] {0, 1}, out, 0, N);
            double[] want = new double[N];
            for (int i = 0; i < N; i++) {
                want[i] = f.applyAsDouble(a.data()[i], b.data()[i]);
            }
            assertClose(want, read(out, 0, N), 1e-6, 2e-6, k + " vector, vector");
            FusedLoops.of(p, new boolean[] {true, false}).orElseThrow()
                    .run(new MemorySegment[] {sc, sb}, new long[] {0, 1}, out, 0, N);
            for (int i = 0; i < N; i++) {
                want[i] = f.applyAsDouble(c, b.data()[i]);
            }
            assertClose(want, read(out, 0, N), 1e-6, 2e-6, k + " scalar, vector");
        }
    }

    /** gelu(a * b + c) - a / 3 with a used twice; the same program and layout share one generated class. */
    @Test
    void multiStepProgram_reusesValues_andIsCached() {
        ElementwiseProgram p = ElementwiseProgram.builder(4)
                .binary(BinaryKind.MUL, 0, 1).binary(BinaryKind.ADD, 4, 2).unary(UnaryKind.GELU, 5)
                .binary(BinaryKind.DIV, 0, 3).binary(BinaryKind.SUB, 6, 7).build();
        boolean[] layout = {false, false, true, true};
        FusedLoop loop = FusedLoops.of(p, layout).orElseThrow();
        assertSame(loop, FusedLoops.of(ElementwiseProgram.of(4, p.steps()), layout.clone()).orElseThrow());
        Random r = new Random(3);
        Ref a = Ref.random(r, -2, 2, N);
        Ref b = Ref.random(r, -2, 2, N);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(4L * N, 64);
            loop.run(new MemorySegment[] {segment(arena, a.data(), 0), segment(arena, b.data(), 0),
                    segment(arena, new double[] {0.25}, 0), segment(arena, new double[] {3}, 0)},
                    new long[4], out, 0, N);
            double[] want = new double[N];
            for (int i = 0; i < N; i++) {
                double t = a.data()[i] * b.data()[i] + 0.25;
                want[i] = 0.5 * t * (1 + ElementRefs.erf(t / Math.sqrt(2))) - a.data()[i] / 3;
            }
            assertClose(want, read(out, 0, N), 2e-6, 2e-6, "gelu(a*b + c) - a/d");
        }
    }

    /**
     * where(a OP b, a * c, b) for every comparison, b with NaN and ties: the loop is generated (a mask local and a
     * blend) and picks what the float64 reference picks.
     */
    @ParameterizedTest
    @EnumSource(CompareKind.class)
    void compareAndSelect_areGenerated_andMatchReference(CompareKind k) {
        ElementwiseProgram p = ElementwiseProgram.builder(3).compare(k, 0, 1).binary(BinaryKind.MUL, 0, 2)
                .select(3, 4, 1).build();
        FusedLoop loop = FusedLoops.of(p, new boolean[] {false, false, true}).orElseThrow();
        Random r = new Random(k.ordinal());
        Ref a = Ref.random(r, -2, 2, N);
        double[] b = Ref.random(r, -2, 2, N).data();
        for (int i = 0; i < N; i += 7) {
            b[i] = i % 21 == 0 ? Double.NaN : a.data()[i]; // NaN and exact ties
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(4L * N, 64);
            loop.run(new MemorySegment[] {segment(arena, a.data(), 0), segment(arena, b, 0),
                    segment(arena, new double[] {-0.5}, 0)}, new long[3], out, 0, N);
            double[] want = new double[N];
            for (int i = 0; i < N; i++) {
                double x = a.data()[i];
                double z = b[i];
                boolean m = switch (k) {
                    case EQ -> x == z;
                    case NE -> x != z;
                    case LT -> x < z;
                    case LE -> x <= z;
                    case GT -> x > z;
                    case GE -> x >= z;
                };
                want[i] = m ? (float) (x * -0.5) : z;
            }
            double[] got = read(out, 0, N);
            for (int i = 0; i < N; i++) {
                assertEquals(Double.doubleToLongBits(want[i]), Double.doubleToLongBits(got[i]), k + " at " + i);
            }
        }
    }

    @Test
    void stepWithoutVectorForm_leavesTheProgramInterpreted() {
        ElementwiseProgram p = ElementwiseProgram.builder(1).unary(UnaryKind.FLOOR, 0).build();
        assertTrue(FusedLoops.of(p, new boolean[1]).isEmpty());
        ElementwiseProgram pow = ElementwiseProgram.builder(2).binary(BinaryKind.POW, 0, 1).build();
        assertTrue(FusedLoops.of(pow, new boolean[2]).isEmpty());
    }
}
