package dev.rlx.onnx;

import static dev.rlx.onnx.OnnxModelBuilder.attrFloat;
import static dev.rlx.onnx.OnnxModelBuilder.attrInt;
import static dev.rlx.onnx.OnnxModelBuilder.attrInts;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.Tensor;
import dev.rlx.opt.PrecisionPolicy;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The F16 and AMP policies against F32 on generated models with the structures of the ONNX corpus
 * ({@code ./rlx-bench/run Models}): a detector's conv, batch norm with raw inference statistics (a running
 * variance far beyond F16's range, as PP-OCRv4's detector has), ReLU and a 2x2 stride-2 transposed conv into a
 * sigmoid; an audio embedder's conv, LeakyRelu and max pool; a recurrent model's LSTM. Every output must be
 * within {@link #TOLERANCE} of F32's, relative to the output's largest magnitude.
 */
class HalfPrecisionModelsTest {
    static final int FLOAT = 1;
    /** Max |policy - f32| over max |f32|: F16 keeps 11 significant bits, a few roundings deep. */
    static final double TOLERANCE = 2e-2;

    static float[] random(Random r, int n, double scale) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) ((r.nextDouble() * 2 - 1) * scale);
        }
        return v;
    }

    /** Conv 3->8 (3x3, pad 1) -> BatchNorm (variance ~1e8) -> Relu -> ConvTranspose 8->2 (2x2, stride 2) -> Sigmoid. */
    static byte[] detector(Random r) {
        float[] var = new float[8];
        float[] gamma = new float[8];
        float[] mean = random(r, 8, 50);
        for (int i = 0; i < 8; i++) {
            var[i] = (float) (1e8 * (1 + r.nextDouble()));
            gamma[i] = (float) (1e4 * (0.5 + r.nextDouble())); // k = gamma / sqrt(var) ~ 1
        }
        OnnxModelBuilder b = new OnnxModelBuilder(13);
        b.graph().input("x", FLOAT, 1, 3, 13, 11).output("y", FLOAT)
                .initializer("w", Tensor.of(random(r, 8 * 3 * 9, 0.5), 8, 3, 3, 3))
                .initializer("cb", Tensor.of(random(r, 8, 50), 8))
                .initializer("gamma", Tensor.of(gamma, 8)).initializer("beta", Tensor.of(random(r, 8, 1), 8))
                .initializer("mean", Tensor.of(mean, 8)).initializer("var", Tensor.of(var, 8))
                .initializer("wt", Tensor.of(random(r, 8 * 2 * 4, 0.5), 8, 2, 2, 2))
                .node("Conv", List.of("x", "w", "cb"), List.of("c"), attrInts("kernel_shape", 3, 3), attrInts("pads", 1, 1, 1, 1))
                .node("BatchNormalization", List.of("c", "gamma", "beta", "mean", "var"), List.of("n"), attrFloat("epsilon", 1e-5f))
                .node("Relu", List.of("n"), List.of("a"))
                .node("ConvTranspose", List.of("a", "wt"), List.of("t"), attrInts("kernel_shape", 2, 2), attrInts("strides", 2, 2))
                .node("Sigmoid", List.of("t"), List.of("y"));
        return b.build();
    }

    /** Conv 1->16 (3x3) -> LeakyRelu(0.2) -> MaxPool 2x2 -> Conv 16->4 (1x1). */
    static byte[] embedder(Random r) {
        OnnxModelBuilder b = new OnnxModelBuilder(13);
        b.graph().input("x", FLOAT, 1, 1, 15, 9).output("y", FLOAT)
                .initializer("w1", Tensor.of(random(r, 16 * 9, 0.5), 16, 1, 3, 3))
                .initializer("w2", Tensor.of(random(r, 4 * 16, 0.5), 4, 16, 1, 1))
                .node("Conv", List.of("x", "w1"), List.of("c"), attrInts("kernel_shape", 3, 3))
                .node("LeakyRelu", List.of("c"), List.of("l"), attrFloat("alpha", 0.2f))
                .node("MaxPool", List.of("l"), List.of("p"), attrInts("kernel_shape", 2, 2), attrInts("strides", 2, 2))
                .node("Conv", List.of("p", "w2"), List.of("y"), attrInts("kernel_shape", 1, 1));
        return b.build();
    }

    /** LSTM over 5 steps of 7 features, hidden 6, then the last hidden state. */
    static byte[] recurrent(Random r) {
        OnnxModelBuilder b = new OnnxModelBuilder(13);
        b.graph().input("x", FLOAT, 5, 1, 7).output("y", FLOAT).output("h", FLOAT)
                .initializer("W", Tensor.of(random(r, 24 * 7, 0.5), 1, 24, 7))
                .initializer("R", Tensor.of(random(r, 24 * 6, 0.5), 1, 24, 6))
                .initializer("B", Tensor.of(random(r, 48, 0.2), 1, 48))
                .node("LSTM", List.of("x", "W", "R", "B"), List.of("y", "h"), attrInt("hidden_size", 6));
        return b.build();
    }

    static List<float[]> run(byte[] model, Tensor x, PrecisionPolicy p) {
        try (Session s = new Session(Device.CPU, CompileOptions.defaults().withThreads(1).withPrecision(p));
             CompiledGraph c = OnnxModel.parse(model, null).importGraph(OnnxBinding.of(Map.of("x", x))).compile(s)) {
            c.setInput("x", x);
            c.run();
            List<float[]> out = new ArrayList<>();
            for (int i = 0; i < c.outputCount(); i++) {
                out.add(c.output(i).toFloatArray());
            }
            return out;
        }
    }

    static void check(String what, byte[] model, Tensor x, PrecisionPolicy p) {
        List<float[]> ref = run(model, x, PrecisionPolicy.F32);
        List<float[]> half = run(model, x, p);
        for (int o = 0; o < ref.size(); o++) {
            double scale = 0;
            double diff = 0;
            for (int i = 0; i < ref.get(o).length; i++) {
                scale = Math.max(scale, Math.abs(ref.get(o)[i]));
                double d = Math.abs((double) half.get(o)[i] - ref.get(o)[i]);
                diff = Math.max(diff, Double.isNaN(d) ? Double.POSITIVE_INFINITY : d);
            }
            assertTrue(scale > 1e-3, what + " output " + o + ": the f32 reference is near zero; the test needs a larger signal");
            assertTrue(diff <= TOLERANCE * scale, what + " output " + o + " under " + p + ": max diff " + diff + " over max "
                    + scale + " (tolerance " + TOLERANCE + ")");
        }
    }

    @ParameterizedTest
    @EnumSource(value = PrecisionPolicy.class, names = {"F16", "AMP"})
    void detector_batchNormVarianceBeyondHalfRange_staysWithinTolerance(PrecisionPolicy p) {
        Random r = new Random(11);
        check("detector", detector(r), Tensor.of(random(r, 3 * 13 * 11, 1), 1, 3, 13, 11), p);
    }

    @ParameterizedTest
    @EnumSource(value = PrecisionPolicy.class, names = {"F16", "AMP"})
    void embedder_convLeakyReluPool_staysWithinTolerance(PrecisionPolicy p) {
        Random r = new Random(12);
        check("embedder", embedder(r), Tensor.of(random(r, 15 * 9, 1), 1, 1, 15, 9), p);
    }

    @ParameterizedTest
    @EnumSource(value = PrecisionPolicy.class, names = {"F16", "AMP"})
    void recurrent_lstm_staysWithinTolerance(PrecisionPolicy p) {
        Random r = new Random(13);
        check("recurrent", recurrent(r), Tensor.of(random(r, 35, 1), 5, 1, 7), p);
    }
}
