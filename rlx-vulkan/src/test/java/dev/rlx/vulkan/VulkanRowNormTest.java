package dev.rlx.vulkan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Softmax, layer norm, RMS norm and group norm as rownorm.comp (one kernel each, not their decompositions) on odd row
 * lengths and many rows, against a float64 reference: |err| <= 1e-5 (softmax) and 1e-4 (norms, values of
 * order 1-4) absolute; and the same bits on a second run.
 */
class VulkanRowNormTest {
    private static final int[] LENGTHS = {1, 7, 1000, 4099};
    private static final int ROWS = 67;

    @BeforeAll
    static void needsADevice() {
        Assumptions.assumeTrue(Device.VULKAN.isAvailable(), VulkanTestDevice.MISSING);
    }

    private static float[] random(int n, long seed) {
        Random r = new Random(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (r.nextGaussian() * 3 + 0.5);
        }
        return v;
    }

    @Test
    void softmaxAndNorms_matchFloat64_onOddRows() {
        for (int len : LENGTHS) {
            Graph g = new Graph("rows");
            Value x = g.input("x", Shape.of(DType.F32, ROWS, len));
            Value gamma = g.input("gamma", Shape.of(DType.F32, len));
            Value beta = g.input("beta", Shape.of(DType.F32, len));
            g.setOutputs(g.softmax(x, 1), g.layerNorm(x, gamma, beta, 1, 1e-5f), g.rmsNorm(x, gamma, 1e-6f));
            float[] xv = random(ROWS * len, len);
            float[] gv = random(len, 11);
            float[] bv = random(len, 12);
            try (Session s = new Session(Device.VULKAN); CompiledGraph c = s.compile(g)) {
                List<float[]> out = c.run(Map.of("x", xv, "gamma", gv, "beta", bv));
                List<float[]> again = c.run(Map.of("x", xv, "gamma", gv, "beta", bv));
                for (int o = 0; o < 3; o++) {
                    for (int i = 0; i < out.get(o).length; i++) {
                        assertEquals(Float.floatToRawIntBits(out.get(o)[i]), Float.floatToRawIntBits(again.get(o)[i]),
                                "run-to-run bits, output " + o);
                    }
                }
                for (int r = 0; r < ROWS; r++) {
                    check(xv, gv, bv, r, len, out, "len " + len + " row " + r);
                }
            }
        }
    }

    private static void check(float[] x, float[] gamma, float[] beta, int r, int len, List<float[]> out, String what) {
        int at = r * len;
        double max = Double.NEGATIVE_INFINITY;
        double sum = 0;
        double sq = 0;
        for (int j = 0; j < len; j++) {
            max = Math.max(max, x[at + j]);
            sum += x[at + j];
            sq += (double) x[at + j] * x[at + j];
        }
        double mean = sum / len;
        double var = 0;
        double e = 0;
        for (int j = 0; j < len; j++) {
            var += (x[at + j] - mean) * (x[at + j] - mean);
            e += Math.exp(x[at + j] - max);
        }
        var /= len;
        for (int j = 0; j < len; j++) {
            double sm = Math.exp(x[at + j] - max) / e;
            double ln = (x[at + j] - mean) / Math.sqrt(var + 1e-5) * gamma[j] + beta[j];
            double rms = x[at + j] / Math.sqrt(sq / len + 1e-6) * gamma[j];
            assertEquals(sm, out.get(0)[at + j], 1e-5, what + " softmax at " + j);
            assertEquals(ln, out.get(1)[at + j], 1e-4 * Math.max(1, Math.abs(ln)), what + " layer_norm at " + j);
            assertEquals(rms, out.get(2)[at + j], 1e-4 * Math.max(1, Math.abs(rms)), what + " rms_norm at " + j);
        }
    }

    @Test
    void eachComposite_isOneKernel() {
        Graph g = new Graph("one");
        Value x = g.input("x", Shape.of(DType.F32, 5, 33));
        Value gamma = g.input("gamma", Shape.of(DType.F32, 33));
        g.setOutputs(g.rmsNorm(x, gamma, 1e-6f));
        try (Session s = new Session(Device.VULKAN); CompiledGraph c = s.compile(g)) {
            assertTrue(c.kernelCount() <= 1, "rms_norm took " + c.kernelCount() + " kernels");
        }
    }

    /** AddNorm (residual add + RMS norm) as one kernel: the sum exactly, the norm of the sum against float64. */
    @Test
    void addRmsNorm_isOneKernel_andMatchesFloat64() {
        int rows = 9;
        int len = 1001;
        Graph g = new Graph("addnorm");
        Value x = g.input("x", Shape.of(DType.F32, rows, len));
        Value res = g.input("res", Shape.of(DType.F32, rows, len));
        Value gamma = g.input("gamma", Shape.of(DType.F32, len));
        g.setOutputs(g.apply(new dev.rlx.ir.Op.AddNorm(true, 1, 1e-6f), x, res, gamma));
        float[] xv = random(rows * len, 1);
        float[] rv = random(rows * len, 2);
        float[] gv = random(len, 3);
        try (Session s = new Session(Device.VULKAN); CompiledGraph c = s.compile(g)) {
            assertEquals(1, c.kernelCount());
            List<float[]> out = c.run(Map.of("x", xv, "res", rv, "gamma", gv));
            for (int r = 0; r < rows; r++) {
                double sq = 0;
                for (int j = 0; j < len; j++) {
                    float sum = xv[r * len + j] + rv[r * len + j];
                    assertEquals(sum, out.get(0)[r * len + j], "sum at " + r + "," + j);
                    sq += (double) sum * sum;
                }
                for (int j = 0; j < len; j++) {
                    double ref = (xv[r * len + j] + rv[r * len + j]) / Math.sqrt(sq / len + 1e-6) * gv[j];
                    assertEquals(ref, out.get(1)[r * len + j], 1e-4 * Math.max(1, Math.abs(ref)), "norm at " + r + "," + j);
                }
            }
        }
    }

    /**
     * Group norm as one kernel on odd shapes (rank 2, 3 and 4; one group, several, one channel per group) against
     * float64, |err| <= 1e-4 relative to max(1, |ref|), and the same bits on a second run.
     */
    @Test
    void groupNorm_isOneKernel_andMatchesFloat64() {
        int[][] shapes = {{3, 12, 5, 7}, {2, 6, 1001}, {5, 8}, {1, 9, 3, 3}};
        int[] groupCounts = {4, 3, 2, 9};
        for (int c = 0; c < shapes.length; c++) {
            int[] dims = shapes[c];
            int groups = groupCounts[c];
            int channels = dims[1];
            Graph g = new Graph("groupnorm");
            Value x = g.input("x", Shape.of(DType.F32, dims));
            Value gamma = g.input("gamma", Shape.of(DType.F32, channels));
            Value beta = g.input("beta", Shape.of(DType.F32, channels));
            g.setOutputs(g.groupNorm(x, gamma, beta, groups, 1e-5f));
            int count = 1;
            for (int d : dims) {
                count *= d;
            }
            float[] xv = random(count, 21 + c);
            float[] gv = random(channels, 22 + c);
            float[] bv = random(channels, 23 + c);
            try (Session s = new Session(Device.VULKAN); CompiledGraph k = s.compile(g)) {
                assertEquals(1, k.kernelCount(), "group_norm kernels for " + java.util.Arrays.toString(dims));
                float[] out = k.run(Map.of("x", xv, "gamma", gv, "beta", bv)).get(0);
                float[] again = k.run(Map.of("x", xv, "gamma", gv, "beta", bv)).get(0);
                int spatial = count / (dims[0] * channels);
                int len = channels / groups * spatial;
                for (int line = 0; line < dims[0] * groups; line++) {
                    double sum = 0;
                    for (int j = 0; j < len; j++) {
                        sum += xv[line * len + j];
                    }
                    double mean = sum / len;
                    double var = 0;
                    for (int j = 0; j < len; j++) {
                        var += (xv[line * len + j] - mean) * (xv[line * len + j] - mean);
                    }
                    double inv = 1 / Math.sqrt(var / len + 1e-5);
                    for (int j = 0; j < len; j++) {
                        int at = line * len + j;
                        int channel = (line % groups) * (channels / groups) + j / spatial;
                        double ref = (xv[at] - mean) * inv * gv[channel] + bv[channel];
                        assertEquals(ref, out[at], 1e-4 * Math.max(1, Math.abs(ref)),
                                java.util.Arrays.toString(dims) + " group line " + line + " at " + j);
                        assertEquals(Float.floatToRawIntBits(out[at]), Float.floatToRawIntBits(again[at]),
                                "run-to-run bits at " + at);
                    }
                }
            }
        }
    }
}
