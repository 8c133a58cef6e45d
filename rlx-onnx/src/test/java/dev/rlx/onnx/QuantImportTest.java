package dev.rlx.onnx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rlx.ir.DType;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** How the quantized ops of a dynamically quantized model import: exact integer results, fast f32 paths. */
class QuantImportTest {
    static final int FLOAT = 1;
    static final int UINT8 = 2;
    static final int INT8 = 3;

    private static Session session;

    @BeforeAll
    static void open() {
        session = new Session(Device.CPU);
    }

    @AfterAll
    static void close() {
        session.close();
    }

    private static Map<String, Tensor> run(byte[] model, Map<String, Tensor> in) {
        try (OnnxRunner r = new OnnxRunner(OnnxModel.parse(model, null), session)) {
            return r.run(in);
        }
    }

    private static Tensor bytes(DType t, byte[] v, int... dims) {
        return Tensor.ofBytes(Shape.of(t, dims), v);
    }

    /** MatMulInteger(a u8 [m,k] - zpA, w i8 [k,n] - zpW) as int32 with the weight and its zero point initializers. */
    private static OnnxModelBuilder matMulInteger(int m, int k, int n, byte[] w, byte zpW) {
        OnnxModelBuilder b = new OnnxModelBuilder(13);
        b.graph().input("a", UINT8, m, k).input("zpA", UINT8).output("y", 6, m, n)
                .initializer("w", bytes(DType.I8, w, k, n))
                .initializer("zpW", bytes(DType.I8, new byte[] {zpW}))
                .node("MatMulInteger", List.of("a", "w", "zpA", "zpW"), List.of("y"));
        return b;
    }

    private static int[] reference(byte[] a, int zpA, byte[] w, int zpW, int m, int k, int n) {
        int[] y = new int[m * n];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                for (int q = 0; q < k; q++) {
                    y[i * n + j] += ((a[i * k + q] & 0xFF) - zpA) * (w[q * n + j] - zpW);
                }
            }
        }
        return y;
    }

    private static DType matmulType(OnnxGraph g) {
        return g.graph().nodes().stream().filter(x -> x.op() instanceof Op.MatMul).map(Node::shape).map(Shape::dtype)
                .findFirst().orElseThrow();
    }

    private static int[] ints(Tensor t) {
        int[] v = new int[(int) t.shape().elementCount()];
        for (int i = 0; i < v.length; i++) {
            v[i] = (int) t.getDouble(i);
        }
        return v;
    }

    @Test
    void matMulInteger_constantWeights_runOnF32Gemm_exactly() {
        Random r = new Random(3);
        int m = 5, k = 96, n = 7;
        byte[] a = new byte[m * k];
        byte[] w = new byte[k * n];
        r.nextBytes(a);
        r.nextBytes(w);
        byte[] model = matMulInteger(m, k, n, w, (byte) -3).build();
        Map<String, Tensor> in = Map.of("a", bytes(DType.U8, a, m, k), "zpA", bytes(DType.U8, new byte[] {(byte) 131}));
        assertEquals(DType.F32, matmulType(OnnxModel.parse(model, null).importGraph(OnnxBinding.of(in))));
        Tensor y = run(model, in).get("y");
        assertEquals(DType.I32, y.dtype());
        assertArrayEquals(reference(a, 131, w, -3, m, k, n), ints(y));
    }

    @Test
    void matMulInteger_sumsThatCouldRoundInF32_stayInI32() {
        int m = 2, k = 600, n = 3; // 600 * 127 * 255 > 2^24: an f32 sum could round
        byte[] a = new byte[m * k];
        byte[] w = new byte[k * n];
        Arrays.fill(a, (byte) 255);
        Arrays.fill(w, (byte) 127);
        byte[] model = matMulInteger(m, k, n, w, (byte) 0).build();
        Map<String, Tensor> in = Map.of("a", bytes(DType.U8, a, m, k), "zpA", bytes(DType.U8, new byte[] {0}));
        assertEquals(DType.I32, matmulType(OnnxModel.parse(model, null).importGraph(OnnxBinding.of(in))));
        int[] y = ints(run(model, in).get("y"));
        assertEquals(600 * 255 * 127, y[0]);
        assertArrayEquals(reference(a, 0, w, 0, m, k, n), y);
    }

    private static byte[] dynamicQuantize(int n) {
        OnnxModelBuilder b = new OnnxModelBuilder(13);
        b.graph().input("x", FLOAT, n).output("q", UINT8, n).output("scale", FLOAT).output("zp", UINT8)
                .node("DynamicQuantizeLinear", List.of("x"), List.of("q", "scale", "zp"));
        return b.build();
    }

    @Test
    void dynamicQuantizeLinear_roundsHalfToEven() {
        // range [0, 255]: scale 1, zero point 0, so q = round(x)
        Map<String, Tensor> out = run(dynamicQuantize(6),
                Map.of("x", Tensor.of(new float[] {0, 2.5f, 3.5f, 100.5f, 254.5f, 255}, 6)));
        assertArrayEquals(new int[] {0, 2, 4, 100, 254, 255}, ints(out.get("q")));
        assertEquals(1f, out.get("scale").toFloatArray()[0]);
        // range [-128, 127]: zero point 128; -0.5 and 0.5 round to 0, 1.5 to 2
        out = run(dynamicQuantize(5), Map.of("x", Tensor.of(new float[] {-128, 127, -0.5f, 0.5f, 1.5f}, 5)));
        assertArrayEquals(new int[] {0, 255, 128, 128, 130}, ints(out.get("q")));
        assertEquals(128, ints(out.get("zp"))[0]);
    }

    @Test
    void dynamicQuantizeThenMatMulInteger_castToFloat_matchesIntegerReference() {
        Random r = new Random(11);
        int m = 4, k = 32, n = 6;
        float[] x = new float[m * k];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) r.nextGaussian();
        }
        byte[] w = new byte[k * n];
        r.nextBytes(w);
        OnnxModelBuilder b = new OnnxModelBuilder(13);
        b.graph().input("x", FLOAT, m, k).output("y", FLOAT, m, n).output("q", UINT8, m, k).output("zp", UINT8)
                .initializer("w", bytes(DType.I8, w, k, n))
                .node("DynamicQuantizeLinear", List.of("x"), List.of("q", "scale", "zp"))
                .node("MatMulInteger", List.of("q", "w", "zp"), List.of("acc"))
                .node("Cast", List.of("acc"), List.of("y"), OnnxModelBuilder.attrInt("to", FLOAT));
        Map<String, Tensor> out = run(b.build(), Map.of("x", Tensor.of(x, m, k)));
        int[] q = ints(out.get("q"));
        byte[] qb = new byte[q.length];
        for (int i = 0; i < q.length; i++) {
            qb[i] = (byte) q[i];
        }
        int[] ref = reference(qb, ints(out.get("zp"))[0], w, 0, m, k, n);
        float[] y = out.get("y").toFloatArray();
        for (int i = 0; i < ref.length; i++) {
            assertEquals(ref[i], y[i], 0f, "element " + i);
        }
    }
}
