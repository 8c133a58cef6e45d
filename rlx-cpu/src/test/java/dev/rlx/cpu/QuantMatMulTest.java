package dev.rlx.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.HalfFloats;
import dev.rlx.ir.Shape;
import dev.rlx.ir.ShapeException;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.ir.quant.WeightFormat;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.testkit.Allocations;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code Op.QuantMatMul} on the CPU against a float64 reference: {@code sum_i x[m,i] * dequant(w)[j,i]} in double,
 * the weights decoded by the format's reference decoder ({@link WeightFormat#decode}), for every format, odd
 * output counts, 1 to 130 rows of x (tiles of 4 and their remainders), 1 and 2 threads. Weights of encodable
 * formats are random floats quantised by ggml's reference quantisers; K-quant blocks are random bytes with small
 * f16 scales. Tolerance: {@code 2e-6 * sum_i |x_i w_i| + 1e-6}: f32 products summed in a different order.
 */
class QuantMatMulTest {

    static Stream<Arguments> cases() {
        Stream.Builder<Arguments> b = Stream.builder();
        for (WeightFormat f : WeightFormat.values()) {
            int k = f.blockElems() == 256 ? 512 : f.blockElems() == 32 ? 96 : 75; // F32/F16/BF16: a scalar tail
            for (int[] mn : new int[][] {{1, 7}, {3, 67}, {5, 1}, {17, 33}, {130, 9}}) {
                b.add(Arguments.of(f, mn[0], k, mn[1], 1));
            }
            b.add(Arguments.of(f, 6, k, 67, 2));
        }
        return b.build();
    }

    /** Weight bytes of {@code n} rows of {@code k} in {@code f}: quantised random floats or random K-quant blocks. */
    static byte[] weights(WeightFormat f, int n, int k, Random r) {
        int rowBytes = (int) f.rowBytes(k);
        byte[] bytes = new byte[n * rowBytes];
        MemorySegment seg = MemorySegment.ofArray(bytes);
        if (f.encodable()) {
            float[] row = new float[k];
            for (int j = 0; j < n; j++) {
                for (int i = 0; i < k; i++) {
                    row[i] = (float) (r.nextGaussian() * 0.5);
                }
                f.encode(row, 0, seg, (long) j * rowBytes, k);
            }
        } else {
            r.nextBytes(bytes);
            ByteBuffer bb = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            for (int blk = 0; blk < n * k / 256; blk++) { // finite, small scales where each format keeps them
                int o = blk * f.blockBytes();
                short d = HalfFloats.toF16((float) (r.nextDouble() * 0.01 + 1e-4));
                switch (f) {
                    case Q4_K, Q5_K -> {
                        bb.putShort(o, d);
                        bb.putShort(o + 2, HalfFloats.toF16((float) (r.nextDouble() * 0.01)));
                    }
                    case Q6_K -> bb.putShort(o + 208, d);
                    case Q8_K -> bb.putFloat(o, (float) (r.nextDouble() * 0.01 + 1e-4));
                    default -> throw new IllegalStateException(f.name());
                }
            }
        }
        return bytes;
    }

    static CompiledGraph compile(Session s, WeightFormat f, int m, int k, int n, int threads) {
        Graph g = new Graph("qmm_" + f);
        Value x = g.input("x", Shape.of(DType.F32, m, k));
        Value w = g.input("w", Shape.of(DType.U8, n, (int) f.rowBytes(k)));
        g.setOutputs(g.quantMatMul(x, w, f));
        return s.compile(g, CompileOptions.defaults().withThreads(threads));
    }

    @ParameterizedTest(name = "{0} m={1} k={2} n={3} threads={4}")
    @MethodSource("cases")
    void matchesFloat64Reference(WeightFormat f, int m, int k, int n, int threads) {
        Random r = new Random(31L * m + n + f.ordinal());
        byte[] wb = weights(f, n, k, r);
        float[] x = new float[m * k];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) (r.nextGaussian());
        }
        float[] got;
        try (Session s = new Session(Device.CPU); CompiledGraph c = compile(s, f, m, k, n, threads)) {
            c.setInput("x", x);
            c.setInput("w", Tensor.ofBytes(Shape.of(DType.U8, n, (int) f.rowBytes(k)), wb));
            c.run();
            got = c.output(0).toFloatArray();
            c.run();
            assertArrayEquals(got, c.output(0).toFloatArray(), "a second run gives the same bits");
        }
        float[] row = new float[k];
        MemorySegment seg = MemorySegment.ofArray(wb);
        for (int j = 0; j < n; j++) {
            f.decode(seg, j * f.rowBytes(k), row, 0, k);
            for (int mi = 0; mi < m; mi++) {
                double want = 0;
                double mag = 0;
                for (int i = 0; i < k; i++) {
                    want += (double) x[mi * k + i] * row[i];
                    mag += Math.abs((double) x[mi * k + i] * row[i]);
                }
                double err = Math.abs(got[mi * n + j] - want);
                assertTrue(err <= 2e-6 * mag + 1e-6, f + " y[" + mi + "," + j + "] = " + got[mi * n + j] + " but the "
                        + "reference is " + want + " (|x||w| " + mag + ")");
            }
        }
    }

    /** A row of x gets the same bits alone as in a batch (a sequence decoded alone or with others). */
    @Test
    void outputs_doNotDependOnTheBatch() {
        for (WeightFormat f : new WeightFormat[] {WeightFormat.Q8_0, WeightFormat.Q4_0, WeightFormat.F16,
                WeightFormat.Q6_K, WeightFormat.F32}) {
            int k = 256 + 16 * (f.blockElems() == 1 ? 1 : 0);
            int n = 19;
            Random r = new Random(5);
            byte[] wb = weights(f, n, k, r);
            float[] x = new float[7 * k];
            for (int i = 0; i < x.length; i++) {
                x[i] = (float) r.nextGaussian();
            }
            Tensor w = Tensor.ofBytes(Shape.of(DType.U8, n, (int) f.rowBytes(k)), wb);
            try (Session s = new Session(Device.CPU); CompiledGraph batch = compile(s, f, 7, k, n, 2);
                 CompiledGraph one = compile(s, f, 1, k, n, 1)) {
                batch.setInput("x", x);
                batch.setInput("w", w);
                batch.run();
                float[] all = batch.output(0).toFloatArray();
                one.setInput("w", w);
                for (int m = 0; m < 7; m++) {
                    one.setInput("x", java.util.Arrays.copyOfRange(x, m * k, (m + 1) * k));
                    one.run();
                    assertArrayEquals(java.util.Arrays.copyOfRange(all, m * n, (m + 1) * n), one.output(0).toFloatArray(),
                            f + " row " + m + " of 7 vs alone");
                }
            }
        }
    }

    @Test
    void f16Weights_specialValuesAndSubnormals_widenExactly() {
        int k = 37;
        short[] h = new short[k];
        h[0] = 0x0001;                       // smallest subnormal
        h[1] = 0x03ff;                       // largest subnormal
        h[2] = (short) 0x8400;               // -smallest normal
        h[3] = 0x7bff;                       // 65504
        h[4] = (short) 0xbc00;               // -1
        for (int i = 5; i < k; i++) {
            h[i] = HalfFloats.toF16(i * 0.37f - 5);
        }
        byte[] wb = new byte[2 * k];
        ByteBuffer.wrap(wb).order(ByteOrder.LITTLE_ENDIAN).asShortBuffer().put(h);
        for (int probe = 0; probe < k; probe++) {
            float[] x = new float[k];
            x[probe] = 1f; // picks out one widened weight exactly
            try (Session s = new Session(Device.CPU); CompiledGraph c = compile(s, WeightFormat.F16, 1, k, 1, 1)) {
                c.setInput("x", x);
                c.setInput("w", Tensor.ofBytes(Shape.of(DType.U8, 1, 2 * k), wb));
                c.run();
                assertArrayEquals(new float[] {Float.float16ToFloat(h[probe])}, c.output(0).toFloatArray(),
                        "weight " + probe + " = 0x" + Integer.toHexString(h[probe] & 0xffff));
            }
        }
    }

    @Test
    void badShapes_typedErrorsNamingTheOperand() {
        Graph g = new Graph("bad");
        Value x = g.input("x", Shape.of(DType.F32, 2, 40));
        Value w = g.input("w", Shape.of(DType.U8, 3, 34));
        ShapeException notBlocks = assertThrows(ShapeException.class, () -> g.quantMatMul(x, w, WeightFormat.Q8_0));
        assertTrue(notBlocks.getMessage().contains("K = 40"), notBlocks.getMessage());
        Value x64 = g.input("x64", Shape.of(DType.F32, 2, 64));
        ShapeException rowBytes = assertThrows(ShapeException.class, () -> g.quantMatMul(x64, w, WeightFormat.Q8_0));
        assertTrue(rowBytes.getMessage().contains("u8 [N, 68]"), rowBytes.getMessage());
        Value xi = g.input("xi", Shape.of(DType.I32, 2, 64));
        assertThrows(ShapeException.class, () -> g.quantMatMul(xi, w, WeightFormat.Q8_0));
    }

    /** Tagged {@code allocation}: run in the allocation tests' JVM (-Xbatch), where C2's code does not depend on other tests' profiles. */
    @Test
    @Tag("allocation")
    void run_allocatesNothing() {
        for (WeightFormat f : new WeightFormat[] {WeightFormat.Q8_0, WeightFormat.Q4_0, WeightFormat.F16,
                WeightFormat.Q4_K, WeightFormat.Q5_K, WeightFormat.Q6_K}) {
            int k = 512;
            int n = 64;
            Random r = new Random(3);
            try (Session s = new Session(Device.CPU); CompiledGraph c = compile(s, f, 5, k, n, 1)) {
                c.setInput("x", new float[5 * k]);
                c.setInput("w", Tensor.ofBytes(Shape.of(DType.U8, n, (int) f.rowBytes(k)), weights(f, n, k, r)));
                Allocations.assertSteadyStateAllocatesNothing("quant_matmul " + f, c::run, 2_000);
            }
        }
    }
}
