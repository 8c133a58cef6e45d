package dev.rlx.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The same input gives the same output bits on every run, before and after the JIT compiles the kernels, and in
 * a fresh JVM running only the interpreter ({@code -Xint}, where the Vector API runs its Java fallback): softmax,
 * log-softmax, layer and RMS norm, sums and matmul, exp, sigmoid, SiLU, erf, both GELUs, tanh, log (subnormal to
 * huge operands), sin, cos, tan and atan (small arguments and beyond the trig reduction's exact range), alone and in
 * fused chains, compare-and-where fused into mask steps, at odd sizes (vector body and scalar tail). With softmax's row sum by {@code reduceLanes(ADD)}, as
 * before, the first test failed at run 135; with {@code lanewise(EXP/TANH/LOG/SIN/...)}, as before, the -Xint digest
 * differed.
 */
class DeterminismTest {
    static Graph graph() {
        Graph g = new Graph("determinism");
        Value x = g.input("x", Shape.of(DType.F32, 37, 67));
        Value w = g.input("w", Shape.of(DType.F32, 67, 29));
        Value gamma = g.input("gamma", Shape.of(DType.F32, 67));
        Value beta = g.input("beta", Shape.of(DType.F32, 67));
        Value pos = g.input("pos", Shape.of(DType.F32, 37, 67)); // log's operand: positive, tiny to huge
        Value big = g.input("big", Shape.of(DType.F32, 37, 67)); // beyond the trig reduction's exact range
        g.setOutputs(g.softmax(x, 1), g.logSoftmax(x, 1), g.layerNorm(x, gamma, beta, 1, 1e-5f),
                g.rmsNorm(x, gamma, 1e-6f), g.reduceSum(x, false, 1), g.matmul(x, w), g.gelu(x), g.geluTanh(x),
                g.silu(x), g.sigmoid(x), g.exp(x), g.erf(x), g.silu(g.mul(x, g.add(x, x))), g.tanh(x), g.sin(x),
                g.cos(x), g.tan(x), g.atan(x), g.log(pos), g.log(g.mul(x, x)), g.exp(g.sin(g.tanh(x))),
                g.atan(g.tan(g.cos(x))), g.sin(g.mul(x, g.scalar(5_000f))), g.cos(big),
                // compare-and-where fused into mask steps: generated (elu) and interpreted (with sin)
                g.where(g.gt(x, g.scalar(0f)), x, g.mul(g.scalar(1.5f), g.sub(g.exp(x), g.scalar(1f)))),
                g.where(g.le(g.sin(x), gamma), g.mul(x, beta), g.sin(x)));
        return g;
    }

    static float[] random(int n, long seed) {
        Random r = new Random(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (r.nextGaussian() * 3);
        }
        return v;
    }

    /** Every output's bits, in order, after one run. */
    static List<int[]> bits(CompiledGraph c) {
        c.run();
        List<int[]> out = new ArrayList<>();
        for (int i = 0; i < c.outputCount(); i++) {
            float[] f = c.output(i).toFloatArray();
            int[] b = new int[f.length];
            for (int j = 0; j < f.length; j++) {
                b[j] = Float.floatToRawIntBits(f[j]);
            }
            out.add(b);
        }
        return out;
    }

    static CompiledGraph compiled(Session s) {
        CompiledGraph c = s.compile(graph(), CompileOptions.defaults().withThreads(1));
        c.setInput("x", random(37 * 67, 1));
        c.setInput("w", random(67 * 29, 2));
        c.setInput("gamma", random(67, 3));
        c.setInput("beta", random(67, 4));
        float[] pos = random(37 * 67, 5);
        float[] big = random(37 * 67, 6);
        for (int i = 0; i < pos.length; i++) {
            pos[i] = (float) Math.exp(pos[i] * 12); // about 1e-45 (subnormal) to 1e45 is clipped to the float range
            big[i] = big[i] * 1e5f;
        }
        c.setInput("pos", pos);
        c.setInput("big", big);
        return c;
    }

    /** A digest of the outputs' bits, one line (what the forked JVM prints). */
    static String digest(List<int[]> outs) {
        StringBuilder sb = new StringBuilder();
        for (int[] o : outs) {
            sb.append(Integer.toHexString(java.util.Arrays.hashCode(o))).append(' ');
        }
        return sb.toString().trim();
    }

    /** Entry point of the forked JVM: prints the digest of one run. */
    public static void main(String[] args) {
        try (Session s = new Session(Device.CPU); CompiledGraph c = compiled(s)) {
            System.out.println("digest " + digest(bits(c)));
        }
    }

    @Test
    void run_twentyThousandTimes_sameBitsAsTheFirstRun() {
        try (Session s = new Session(Device.CPU); CompiledGraph c = compiled(s)) {
            List<int[]> first = bits(c);
            for (int r = 1; r < 20_000; r++) {
                List<int[]> now = bits(c);
                for (int o = 0; o < first.size(); o++) {
                    if (!java.util.Arrays.equals(first.get(o), now.get(o))) {
                        int j = java.util.Arrays.mismatch(first.get(o), now.get(o));
                        throw new AssertionError("output " + o + " changed at run " + r + ", element " + j + ": "
                                + Float.intBitsToFloat(first.get(o)[j]) + " then " + Float.intBitsToFloat(now.get(o)[j]));
                    }
                }
            }
        }
    }

    @Test
    void run_inAFreshInterpretedJvm_sameBits() throws Exception {
        String here;
        try (Session s = new Session(Device.CPU); CompiledGraph c = compiled(s)) {
            for (int r = 0; r < 3_000; r++) {
                c.run(); // let C2 compile the kernels here
            }
            here = digest(bits(c));
        }
        String java = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin",
                "java").toString());
        Process p = new ProcessBuilder(java, "-Xint", "--add-modules", "jdk.incubator.vector",
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                DeterminismTest.class.getName()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the forked JVM did not finish");
        }
        String line = out.lines().filter(l -> l.startsWith("digest ")).findFirst()
                .orElseThrow(() -> new AssertionError("the forked JVM printed no digest:\n" + out));
        assertEquals("digest " + here, line, "C2-compiled kernels here vs the interpreter in a fresh JVM");
    }
}
