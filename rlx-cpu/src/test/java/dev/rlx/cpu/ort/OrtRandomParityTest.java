package dev.rlx.cpu.ort;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.RngOptions;
import dev.rlx.runtime.Session;
import java.util.Arrays;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * RLX's ORT generator against ONNX Runtime's CPU provider, run in this JVM through ORT Java: for f32
 * RandomNormal and RandomUniform with several seeds, parameters and shapes, three consecutive runs of one
 * session (ORT keeps its engine across runs) must be bit-identical. ORT's default random engine is
 * libstdc++'s, so the comparison is made on Linux builds of ORT only.
 */
class OrtRandomParityTest {

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("RandomNormal", 0f, 1f, 1f, new int[] {8}),
                Arguments.of("RandomNormal", 0.5f, 2f, 7f, new int[] {3, 5}),
                Arguments.of("RandomNormal", -3f, 0.25f, 0f, new int[] {1}),
                Arguments.of("RandomNormal", 10f, 3f, 12345f, new int[] {2, 3, 4}),
                Arguments.of("RandomNormal", 0f, 1f, 2.9f, new int[] {1001}), // seed 2.9 truncates to 2
                Arguments.of("RandomNormal", 0f, 1f, 2147483647f, new int[] {4096}),
                Arguments.of("RandomUniform", 0f, 1f, 1f, new int[] {8}),
                Arguments.of("RandomUniform", -1f, 2f, 7f, new int[] {3, 5}),
                Arguments.of("RandomUniform", 5f, 5.5f, 0f, new int[] {1}),
                Arguments.of("RandomUniform", -100f, 100f, 99f, new int[] {2, 3, 4}),
                Arguments.of("RandomUniform", 0f, 1f, 65536f, new int[] {4096}));
    }

    @ParameterizedTest(name = "{0}({1}, {2}) seed {3} shape {4}")
    @MethodSource("cases")
    void ortGenerator_matchesOnnxRuntimeBitForBit(String op, float a, float b, float seed, int[] dims)
            throws OrtException {
        assumeTrue(System.getProperty("os.name").toLowerCase().contains("linux"),
                "ORT's Linux build uses libstdc++'s engine and glibc's logf");
        boolean normal = op.equals("RandomNormal");
        long[] shape = Arrays.stream(dims).asLongStream().toArray();
        byte[] model = OnnxModelBytes.randomOp(op, normal ? "mean" : "low", a, normal ? "scale" : "high", b, seed,
                shape, OnnxModelBytes.FLOAT);

        Graph g = new Graph("random");
        Shape s = Shape.of(DType.F32, dims);
        g.setOutputs(normal ? g.rngNormal(a, b, s, (long) seed) : g.rngUniform(a, b, s, (long) seed));

        OrtEnvironment env = OrtEnvironment.getEnvironment();
        try (OrtSession.SessionOptions opts = new OrtSession.SessionOptions();
             OrtSession ort = env.createSession(model, opts);
             Session rlx = new Session(Device.CPU);
             CompiledGraph c = rlx.compile(g, CompileOptions.defaults().withRng(RngOptions.ort(0)))) {
            float[] mine = new float[(int) s.elementCount()];
            for (int run = 0; run < 3; run++) {
                float[] expected;
                try (OrtSession.Result r = ort.run(Map.of())) {
                    expected = flatten(((OnnxTensor) r.get(0)).getFloatBuffer());
                }
                c.run();
                c.output(0).copyTo(mine);
                for (int i = 0; i < expected.length; i++) {
                    int at = i;
                    int r = run;
                    assertEquals(Float.floatToRawIntBits(expected[i]), Float.floatToRawIntBits(mine[i]),
                            () -> "run " + r + " element " + at + ": ORT " + expected[at] + ", RLX " + mine[at]);
                }
            }
        }
    }

    private static float[] flatten(java.nio.FloatBuffer b) {
        float[] out = new float[b.remaining()];
        b.get(out);
        return out;
    }
}
