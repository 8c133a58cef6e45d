package dev.rlx.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.HalfFloats;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link CompiledGraph} over {@link FakeBackend}, every test on both paths: host (inputs written into the
 * arena in place) and staged (device-style, through {@code write}/{@code read}).
 */
class CompiledGraphTest {
    private static final Device DEVICE = Device.WEBGPU;
    private FakeBackend fake;

    @AfterEach
    void unregister() {
        BackendRegistry.global().unregister(DEVICE);
    }

    /**
     * Input "x" {@code dt[1,n]} and param "w" f32[3]; output 0 is x transposed to [n,1] (the fake copies input 0
     * to output 0, which is that transpose), output 1 is -w.
     */
    private CompiledGraph compile(boolean staged, DType dt, int n) {
        Graph g = new Graph("copy_" + dt.label());
        Value x = g.input("x", Shape.of(dt, 1, n));
        Value w = g.param("w", Shape.of(DType.F32, 3));
        g.setOutputs(g.transpose(x, 1, 0), g.neg(w));
        return compile(staged, g);
    }

    private CompiledGraph compile(boolean staged, Graph g) {
        fake = FakeBackend.full(DEVICE, staged);
        BackendRegistry.global().register(DEVICE, () -> fake);
        try (Session s = new Session(DEVICE)) {
            CompiledGraph c = s.compile(g);
            assertEquals(staged, fake.last().hostSlotIsNull(c.graph().inputs().get(0)));
            return c;
        }
    }

    private static float[] floats(CompiledGraph c) {
        c.run();
        return c.output(0).toFloatArray();
    }

    private static long[] longs(CompiledGraph c) {
        c.run();
        long[] out = new long[(int) c.output(0).size()];
        c.output(0).copyTo(out);
        return out;
    }

    private static BindingException binding(Executable call) {
        return assertThrows(BindingException.class, call);
    }

    private static void assertMentions(Throwable e, String... parts) {
        for (String p : parts) {
            assertTrue(e.getMessage().contains(p), "message lacks \"" + p + "\": " + e.getMessage());
        }
    }

    // ---------------------------------------------------------------- names

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void setInputOrParam_unknownName_namesItAndListsTheValidOnes(boolean staged) {
        try (CompiledGraph c = compile(staged, DType.F32, 4)) {
            assertMentions(binding(() -> c.setInput("y", new float[4])), "'y'", "[x]", "@copy_f32");
            assertMentions(binding(() -> c.setParam("x", new float[3])), "'x'", "[w]");
            assertMentions(binding(() -> c.setInput("w", new float[3])), "'w'", "[x]");
            assertMentions(binding(() -> c.setParam("nope", MemorySegment.ofArray(new byte[12]))), "'nope'", "[w]");
            assertMentions(binding(() -> c.inputShape("nope")), "'nope'");
            assertEquals(List.of("x"), c.inputNames());
            assertEquals(List.of("w"), c.paramNames());
            assertEquals(Shape.of(DType.F32, 1, 4), c.inputShape("x"));
            assertEquals(Shape.of(DType.F32, 3), c.paramShape("w"));
        }
    }

    // ---------------------------------------------------------------- counts and types

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void setInput_wrongElementCount_reportsShapeExpectedAndGivenCounts(boolean staged) {
        try (CompiledGraph c = compile(staged, DType.F32, 6)) {
            assertMentions(binding(() -> c.setInput("x", new float[5])), "input 'x'", "f32[1,6]", "6 elements",
                    "given 5 float values");
            assertMentions(binding(() -> c.setInput("x", new double[7])), "f32[1,6]", "6 elements", "given 7 double");
            assertMentions(binding(() -> c.setParam("w", new float[0])), "param 'w'", "f32[3]", "3 elements",
                    "given 0 float");
            assertMentions(binding(() -> c.setInput("x", MemorySegment.ofArray(new byte[23]))), "24 bytes", "23");
            assertMentions(binding(() -> c.setInput("x", Tensor.of(new float[6], 6, 1))), "f32[1,6]", "f32[6,1]");
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void setInput_wrongArrayTypeForTheDtype_isRejected(boolean staged) {
        try (CompiledGraph f = compile(staged, DType.F32, 2)) {
            assertMentions(binding(() -> f.setInput("x", new int[2])), "input 'x'", "f32", "int");
            assertMentions(binding(() -> f.setInput("x", new long[2])), "long");
            assertMentions(binding(() -> f.setInput("x", new boolean[2])), "boolean");
        }
        try (CompiledGraph i = compile(staged, DType.I64, 2)) {
            assertMentions(binding(() -> i.setInput("x", new float[2])), "input 'x'", "i64", "float");
            assertMentions(binding(() -> i.setInput("x", new double[2])), "double");
            assertMentions(binding(() -> i.setInput("x", new boolean[2])), "boolean");
        }
        try (CompiledGraph b = compile(staged, DType.BOOL, 2)) {
            assertMentions(binding(() -> b.setInput("x", new int[] {0, 1})), "bool", "int");
            assertMentions(binding(() -> b.setInput("x", new float[2])), "bool", "float");
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void setInput_integerOutOfRangeForTheSlot_isRejected(boolean staged) {
        try (CompiledGraph u8 = compile(staged, DType.U8, 3)) {
            assertMentions(binding(() -> u8.setInput("x", new int[] {1, 300, 2})), "300", "index 1", "u8");
            assertMentions(binding(() -> u8.setInput("x", new int[] {-1, 0, 0})), "-1", "u8");
            assertMentions(binding(() -> u8.setInput("x", new long[] {0, 0, 256})), "256", "index 2");
        }
        try (CompiledGraph i32 = compile(staged, DType.I32, 2)) {
            assertMentions(binding(() -> i32.setInput("x", new long[] {0, 1L << 31})), String.valueOf(1L << 31), "i32");
            assertMentions(binding(() -> i32.setInput("x", new long[] {Integer.MIN_VALUE - 1L, 0})), "i32");
        }
        try (CompiledGraph i8 = compile(staged, DType.I8, 2)) {
            assertMentions(binding(() -> i8.setInput("x", new int[] {-129, 0})), "-129", "i8");
            assertMentions(binding(() -> i8.setInput("x", new int[] {0, 128})), "128");
        }
        try (CompiledGraph u32 = compile(staged, DType.U32, 2)) {
            assertMentions(binding(() -> u32.setInput("x", new int[] {-5, 0})), "-5", "u32");
            assertMentions(binding(() -> u32.setInput("x", new long[] {0, 1L << 32})), "u32");
            u32.setParam("w", new float[3]);
            u32.setInput("x", new long[] {0, 0xFFFFFFFFL});
            assertArrayEquals(new long[] {0, 0xFFFFFFFFL}, longs(u32));
        }
    }

    // ---------------------------------------------------------------- rejected calls change nothing

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void rejectedCalls_leaveTheGraphUsableAndTheSlotUnchanged(boolean staged) {
        try (CompiledGraph c = compile(staged, DType.F32, 4)) {
            c.setParam("w", new float[] {1, 2, 3});
            c.setInput("x", new float[] {1, 2, 3, 4});
            assertArrayEquals(new float[] {1, 2, 3, 4}, floats(c));
            c.setInput("x", new float[] {5, 6, 7, 8});

            binding(() -> c.setInput("x", new float[3]));
            binding(() -> c.setInput("x", new float[] {9, 9, 9, 9, 9}));
            binding(() -> c.setInput("x", new int[] {9, 9, 9, 9}));
            binding(() -> c.setInput("x", new boolean[4]));
            binding(() -> c.setInput("x", MemorySegment.ofArray(new byte[15])));
            binding(() -> c.setInput("x", Tensor.of(new float[] {9, 9, 9, 9}, 4)));
            binding(() -> c.setInput("x", Tensor.of(new int[] {9, 9, 9, 9}, 1, 4)));
            binding(() -> c.setInput("nope", new float[] {9, 9, 9, 9}));
            binding(() -> c.setParam("w", new float[] {9, 9}));
            binding(() -> c.run(Map.of("x", new float[] {9, 9})));

            assertArrayEquals(new float[] {5, 6, 7, 8}, floats(c));
            assertArrayEquals(new float[] {1, 2, 3},
                    fake.last().slot(c.graph().param("w")).toArray(ValueLayout.JAVA_FLOAT_UNALIGNED));
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void rejectedIntegerCalls_leaveTheSlotUnchanged(boolean staged) {
        try (CompiledGraph c = compile(staged, DType.U8, 3)) {
            c.setParam("w", new float[3]);
            c.setInput("x", new int[] {7, 8, 255});
            binding(() -> c.setInput("x", new int[] {1, 2, 300}));   // the bad value is last: nothing written before
            binding(() -> c.setInput("x", new long[] {1, 2, -1}));
            binding(() -> c.setInput("x", Tensor.of(new int[] {1, 2, 256}, 1, 3)));
            binding(() -> c.setInput("x", new float[] {1, 2, 3}));
            assertArrayEquals(new long[] {7, 8, 255}, longs(c));
        }
    }

    // ---------------------------------------------------------------- run

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void run_beforeAnInputOrParamIsSet_namesIt(boolean staged) {
        try (CompiledGraph c = compile(staged, DType.F32, 2)) {
            assertMentions(binding(c::run), "input 'x'", "f32[1,2]", "setInput");
            c.setInput("x", new float[2]);
            assertMentions(binding(c::run), "param 'w'", "f32[3]", "setParam");
            assertEquals(0, fake.last().runs, "nothing runs while a slot is unset");
            c.setParam("w", new float[3]);
            c.run();
            assertEquals(1, fake.last().runs);
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void runMap_validatesEveryEntryBeforeWritingAny(boolean staged) {
        Graph g = new Graph("two");
        Value x = g.input("x", Shape.of(DType.F32, 1, 2));
        Value y = g.input("y", Shape.of(DType.F32, 3));
        Value ids = g.input("ids", Shape.of(DType.I32, 2));
        g.setOutputs(g.transpose(x, 1, 0), g.neg(y), g.neg(ids));
        try (CompiledGraph c = compile(staged, g)) {
            c.setInput("y", new float[] {1, 2, 3});
            c.setInput("ids", new int[] {4, 5});
            List<float[]> all = c.run(Map.of("x", new float[] {1, 2}));
            assertEquals(3, all.size(), "run(Map) returns every output");
            assertArrayEquals(new float[] {1, 2}, all.get(0));
            assertArrayEquals(new float[3], all.get(1), "the fake computes output 0 only; the others read as zero");
            assertEquals(2, all.get(2).length);

            Map<String, float[]> badLast = new LinkedHashMap<>();
            badLast.put("x", new float[] {7, 7});
            badLast.put("nope", new float[] {7});
            assertMentions(binding(() -> c.run(badLast)), "'nope'", "[x, y, ids]");

            Map<String, float[]> wrongCount = new LinkedHashMap<>();
            wrongCount.put("x", new float[] {7, 7});
            wrongCount.put("y", new float[] {7, 7});
            assertMentions(binding(() -> c.run(wrongCount)), "'y'", "f32[3]", "3 elements", "given 2");

            Map<String, float[]> wrongType = new LinkedHashMap<>();
            wrongType.put("x", new float[] {7, 7});
            wrongType.put("ids", new float[] {7, 7});
            assertMentions(binding(() -> c.run(wrongType)), "'ids'", "i32");

            assertArrayEquals(new float[] {1, 2}, floats(c), "no entry of a rejected map may be written");
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void runMap_withAParamUnset_writesNothing(boolean staged) {
        try (CompiledGraph c = compile(staged, DType.F32, 2)) {
            c.setInput("x", new float[] {1, 2});
            assertMentions(binding(() -> c.run(Map.of("x", new float[] {8, 9}))), "param 'w'");
            c.setParam("w", new float[3]);
            assertArrayEquals(new float[] {1, 2}, floats(c), "a run(Map) that failed must leave the inputs as they were");
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void runMap_keepsInputsNotInTheMap(boolean staged) {
        try (CompiledGraph c = compile(staged, DType.F32, 2)) {
            c.setParam("w", new float[] {1, 1, 1});
            assertArrayEquals(new float[] {3, 4}, c.run(Map.of("x", new float[] {3, 4})).get(0));
            assertArrayEquals(new float[] {3, 4}, c.run(Map.of()).get(0));
        }
    }

    // ---------------------------------------------------------------- outputs

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void output_indexOutOfRange_isRejected(boolean staged) {
        try (CompiledGraph c = compile(staged, DType.F32, 2)) {
            assertEquals(2, c.outputCount());
            assertMentions(binding(() -> c.output(2)), "has 2 outputs", "no output 2");
            assertMentions(binding(() -> c.output(-1)), "no output -1");
            assertEquals(Shape.of(DType.F32, 2, 1), c.output(0).shape());
            assertEquals(List.of(c.output(0), c.output(1)), c.outputs());
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void copyTo_destinationTooSmall_isRejectedAndLargerIsAllowed(boolean staged) {
        try (CompiledGraph c = compile(staged, DType.F32, 4)) {
            c.setParam("w", new float[3]);
            c.setInput("x", new float[] {1, 2, 3, 4});
            c.run();
            TensorView out = c.output(0);
            assertMentions(binding(() -> out.copyTo(new float[3])), "output 0", "f32[4,1]", "4 elements", "holds 3");
            assertMentions(binding(() -> out.copyTo(new double[1])), "double");
            assertMentions(binding(() -> out.copyTo(MemorySegment.ofArray(new byte[15]))), "16 bytes", "15");
            float[] big = new float[6];
            big[4] = 42;
            out.copyTo(big);
            assertArrayEquals(new float[] {1, 2, 3, 4, 42, 0}, big);
            double[] d = new double[4];
            out.copyTo(d);
            assertArrayEquals(new double[] {1, 2, 3, 4}, d);
            MemorySegment seg = MemorySegment.ofArray(new byte[20]);
            out.copyTo(seg);
            assertEquals(3f, seg.get(ValueLayout.JAVA_FLOAT_UNALIGNED, 8));
            assertEquals(Tensor.of(new float[] {1, 2, 3, 4}, 4, 1), out.toTensor());
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void copyTo_arrayTypeTheDtypeCannotFill_isRejected(boolean staged) {
        try (CompiledGraph f = compile(staged, DType.F32, 2)) {
            assertMentions(binding(() -> f.output(0).copyTo(new long[2])), "output 0", "long");
            assertMentions(binding(() -> f.output(0).copyTo(new int[2])), "int");
        }
        try (CompiledGraph i = compile(staged, DType.I64, 2)) {
            assertMentions(binding(() -> i.output(0).copyTo(new int[2])), "i64", "int");
        }
        try (CompiledGraph u = compile(staged, DType.U32, 2)) {
            assertMentions(binding(() -> u.output(0).copyTo(new int[2])), "u32", "int");
        }
    }

    // ---------------------------------------------------------------- close

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void close_thenAnyCall_throwsIllegalState(boolean staged) {
        CompiledGraph c = compile(staged, DType.F32, 2);
        c.setParam("w", new float[3]);
        c.setInput("x", new float[2]);
        c.run();
        TensorView out = c.output(0);
        c.close();
        c.close(); // idempotent
        assertTrue(fake.last().closed, "closing the graph closes the executable");

        List<Executable> calls = List.of(
                () -> c.setInput("x", new float[2]), () -> c.setInput("x", new double[2]),
                () -> c.setInput("x", new int[2]), () -> c.setInput("x", new long[2]),
                () -> c.setInput("x", new boolean[2]), () -> c.setInput("x", MemorySegment.ofArray(new byte[8])),
                () -> c.setInput("x", Tensor.of(new float[2], 1, 2)), () -> c.setParam("w", new float[3]),
                () -> c.setParams(dev.rlx.runtime.weights.BytesWeightLoader.of(Map.of())),
                c::run, () -> c.run(Map.of()), () -> c.output(0), c::outputs, c::outputCount, c::kernelCount,
                c::arenaBytes, c::unsharedBytes, c::memoryReport, c::inputNames, c::paramNames,
                () -> c.inputShape("x"), () -> c.paramShape("w"), c::graph, c::device,
                () -> out.copyTo(new float[2]), () -> out.copyTo(new double[2]), () -> out.copyTo(new long[2]),
                () -> out.copyTo(new int[2]), () -> out.copyTo(MemorySegment.ofArray(new byte[8])), out::toTensor,
                out::toFloatArray);
        for (int i = 0; i < calls.size(); i++) {
            IllegalStateException e = assertThrows(IllegalStateException.class, calls.get(i), "call " + i);
            assertMentions(e, "@copy_f32", "closed");
        }
    }

    // ---------------------------------------------------------------- conversions

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void setInput_floatArray_convertsToF16Bf16AndF64(boolean staged) {
        float[] in = {1.5f, -2.25f, 65504f, 1f / 3, 0f, -0f, 1e-8f, 70000f};
        try (CompiledGraph h = compile(staged, DType.F16, in.length)) {
            h.setParam("w", new float[3]);
            h.setInput("x", in);
            float[] expected = new float[in.length];
            for (int i = 0; i < in.length; i++) {
                expected[i] = HalfFloats.f16ToFloat(HalfFloats.toF16(in[i]));
            }
            assertArrayEquals(expected, floats(h));
            assertEquals(Float.POSITIVE_INFINITY, expected[7], "70000 overflows f16");
            h.setInput("x", new double[] {0.5, 1, 2, 4, 8, 16, 32, 64});
            assertArrayEquals(new float[] {0.5f, 1, 2, 4, 8, 16, 32, 64}, floats(h));
        }
        try (CompiledGraph b = compile(staged, DType.BF16, in.length)) {
            b.setParam("w", new float[3]);
            b.setInput("x", in);
            float[] expected = new float[in.length];
            for (int i = 0; i < in.length; i++) {
                expected[i] = HalfFloats.bf16ToFloat(HalfFloats.toBF16(in[i]));
            }
            assertArrayEquals(expected, floats(b));
        }
        try (CompiledGraph d = compile(staged, DType.F64, 3)) {
            d.setParam("w", new float[3]);
            d.setInput("x", new float[] {0.1f, -3, 1e30f});
            d.run();
            double[] out = new double[3];
            d.output(0).copyTo(out);
            assertArrayEquals(new double[] {0.1f, -3, 1e30f}, out);
            d.setInput("x", new double[] {0.1, Math.PI, -1e300});
            d.run();
            d.output(0).copyTo(out);
            assertArrayEquals(new double[] {0.1, Math.PI, -1e300}, out, "f64 keeps double precision");
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void setInput_integerArrays_convertAcrossIntegerWidths(boolean staged) {
        try (CompiledGraph i64 = compile(staged, DType.I64, 3)) {
            i64.setParam("w", new float[3]);
            i64.setInput("x", new int[] {Integer.MIN_VALUE, -1, Integer.MAX_VALUE});
            assertArrayEquals(new long[] {Integer.MIN_VALUE, -1, Integer.MAX_VALUE}, longs(i64));
            i64.setInput("x", new long[] {Long.MIN_VALUE, 0, Long.MAX_VALUE});
            assertArrayEquals(new long[] {Long.MIN_VALUE, 0, Long.MAX_VALUE}, longs(i64));
        }
        try (CompiledGraph i8 = compile(staged, DType.I8, 3)) {
            i8.setParam("w", new float[3]);
            i8.setInput("x", new int[] {-128, 5, 127});
            i8.run();
            int[] out = new int[3];
            i8.output(0).copyTo(out);
            assertArrayEquals(new int[] {-128, 5, 127}, out);
        }
        try (CompiledGraph i32 = compile(staged, DType.I32, 2)) {
            i32.setParam("w", new float[3]);
            i32.setInput("x", new long[] {Integer.MIN_VALUE, Integer.MAX_VALUE});
            i32.run();
            int[] out = new int[2];
            i32.output(0).copyTo(out);
            assertArrayEquals(new int[] {Integer.MIN_VALUE, Integer.MAX_VALUE}, out);
            float[] f = new float[2];
            i32.output(0).copyTo(f);
            assertArrayEquals(new float[] {Integer.MIN_VALUE, Integer.MAX_VALUE}, f);
        }
        try (CompiledGraph u8 = compile(staged, DType.U8, 2)) {
            u8.setParam("w", new float[3]);
            u8.setInput("x", new long[] {0, 255});
            u8.run();
            int[] out = new int[2];
            u8.output(0).copyTo(out);
            assertArrayEquals(new int[] {0, 255}, out, "u8 reads back unsigned");
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void setInput_booleans_andTensorViewBoolConversions(boolean staged) {
        try (CompiledGraph b = compile(staged, DType.BOOL, 4)) {
            b.setParam("w", new float[3]);
            b.setInput("x", new boolean[] {true, false, false, true});
            b.run();
            int[] ints = new int[4];
            b.output(0).copyTo(ints);
            assertArrayEquals(new int[] {1, 0, 0, 1}, ints);
            long[] longs = new long[4];
            b.output(0).copyTo(longs);
            assertArrayEquals(new long[] {1, 0, 0, 1}, longs);
            assertArrayEquals(new float[] {1, 0, 0, 1}, b.output(0).toFloatArray());
            // Raw bytes other than 0/1 still read as true.
            b.setInput("x", MemorySegment.ofArray(new byte[] {0, 2, (byte) 0xFF, 1}));
            b.run();
            b.output(0).copyTo(ints);
            assertArrayEquals(new int[] {0, 1, 1, 1}, ints);
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void tensorViewCopyTo_convertsF16ToFloatAndI64ToLong(boolean staged) {
        try (CompiledGraph h = compile(staged, DType.F16, 3)) {
            h.setParam("w", new float[3]);
            MemorySegment raw = MemorySegment.ofArray(new short[] {HalfFloats.toF16(0.5f), HalfFloats.toF16(-4f),
                    HalfFloats.toF16(1024f)});
            h.setInput("x", raw);
            assertArrayEquals(new float[] {0.5f, -4f, 1024f}, floats(h));
            MemorySegment back = MemorySegment.ofArray(new short[3]);
            h.output(0).copyTo(back);
            assertEquals(HalfFloats.toF16(-4f), back.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, 1));
        }
        try (CompiledGraph l = compile(staged, DType.I64, 2)) {
            l.setParam("w", new float[3]);
            l.setInput("x", new long[] {1L << 40, -(1L << 50)});
            assertArrayEquals(new long[] {1L << 40, -(1L << 50)}, longs(l));
            double[] d = new double[2];
            l.output(0).copyTo(d);
            assertArrayEquals(new double[] {1L << 40, -(1L << 50)}, d);
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void setInput_tensor_convertsDtypeOfTheSameShape(boolean staged) {
        try (CompiledGraph c = compile(staged, DType.F16, 2)) {
            c.setParam("w", Tensor.of(new double[] {1, 2, 3}, 3));
            c.setInput("x", Tensor.of(new float[] {0.25f, 8f}, 1, 2));
            assertArrayEquals(new float[] {0.25f, 8f}, floats(c));
            float[] w = new float[3];
            c.output(1).copyTo(w);
            assertEquals(3, w.length);
        }
        try (CompiledGraph c = compile(staged, DType.I8, 2)) {
            c.setParam("w", new float[3]);
            c.setInput("x", Tensor.of(new long[] {-3, 100}, 1, 2));
            assertArrayEquals(new long[] {-3, 100}, longs(c));
            assertMentions(binding(() -> c.setInput("x", Tensor.of(new long[] {-3, 1000}, 1, 2))), "1000", "i8");
            assertArrayEquals(new long[] {-3, 100}, longs(c));
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void setInput_memorySegment_checksByteSize(boolean staged) {
        try (CompiledGraph c = compile(staged, DType.I32, 2); Arena arena = Arena.ofConfined()) {
            c.setParam("w", new float[3]);
            MemorySegment ok = arena.allocate(8);
            ok.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, 0, 11);
            ok.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, 1, -12);
            c.setInput("x", ok);
            assertArrayEquals(new long[] {11, -12}, longs(c));
            assertMentions(binding(() -> c.setInput("x", arena.allocate(9))), "input 'x'", "needs 8 bytes", "has 9");
            assertMentions(binding(() -> c.setInput("x", arena.allocate(4))), "has 4");
            assertArrayEquals(new long[] {11, -12}, longs(c));
        }
    }

    // ---------------------------------------------------------------- staged versus host

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void stagedPath_movesDataOnlyThroughWriteAndRead(boolean staged) {
        try (CompiledGraph c = compile(staged, DType.F32, 3)) {
            FakeBackend.FakeExecutable exe = fake.last();
            c.setParam("w", new float[] {1, 2, 3});
            c.setInput("x", new float[] {4, 5, 6});
            assertEquals(staged ? 1 : 0, exe.writes, "the input goes to the executable's arena");
            assertEquals(staged ? 1 : 0, fake.runtime.uploads.get(), "the param goes to its weight-set buffer");
            // Either way the bytes are in the arena slot once set.
            assertEquals(5f, exe.slot(c.graph().inputs().get(0)).getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, 1));
            c.run();
            c.output(0).copyTo(new float[3]);
            assertEquals(staged ? 1 : 0, exe.reads);
            assertEquals(1, exe.runs);
        }
    }

    @org.junit.jupiter.api.Test
    void hostAndStagedPaths_giveTheSameResults() {
        float[] data = {3.25f, -1e-3f, 7f, 65000f, -0.5f, 2f};
        float[][] results = new float[2][];
        long[][] ints = new long[2][];
        for (int k = 0; k < 2; k++) {
            boolean staged = k == 1;
            try (CompiledGraph c = compile(staged, DType.BF16, data.length)) {
                c.setParam("w", new float[] {1, 2, 3});
                c.setInput("x", data);
                results[k] = floats(c);
                unregister();
            }
            try (CompiledGraph c = compile(staged, DType.I16, 3)) {
                c.setParam("w", new float[3]);
                c.setInput("x", new int[] {-32768, 12, 32767});
                ints[k] = longs(c);
                unregister();
            }
        }
        assertArrayEquals(results[0], results[1]);
        assertArrayEquals(ints[0], ints[1]);
        assertArrayEquals(new long[] {-32768, 12, 32767}, ints[0]);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void metadata_reportsThePlanAndKernels(boolean staged) {
        try (CompiledGraph c = compile(staged, DType.F32, 4)) {
            assertEquals(DEVICE, c.device());
            assertEquals(2, c.kernelCount());
            assertTrue(c.arenaBytes() > 0 && c.arenaBytes() <= c.unsharedBytes());
            assertTrue(c.memoryReport().contains("arena " + c.arenaBytes() + " bytes"), c.memoryReport());
        }
    }

    // ---------------------------------------------------------------- zero-size

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void zeroSizeInput_canBeSetAndRead(boolean staged) {
        try (CompiledGraph c = compile(staged, DType.F32, 0)) {
            c.setParam("w", new float[3]);
            c.setInput("x", new float[0]);
            assertArrayEquals(new float[0], floats(c));
            assertMentions(binding(() -> c.setInput("x", new float[1])), "0 elements");
        }
    }
}
