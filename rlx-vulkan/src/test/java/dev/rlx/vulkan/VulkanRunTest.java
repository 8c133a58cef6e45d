package dev.rlx.vulkan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.UnsupportedOpException;
import dev.rlx.testkit.Allocations;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The quickstart and a larger SGEMM on Vulkan, the device listing and choice, a steady run that allocates nothing
 * on the Java heap, the per-run overhead, and the typed error for a graph with an op the backend lacks.
 */
class VulkanRunTest {
    @BeforeAll
    static void needsADevice() {
        Assumptions.assumeTrue(Device.VULKAN.isAvailable(), VulkanTestDevice.MISSING);
    }

    private static Graph quickstart() {
        Graph g = new Graph("hello");
        Value x = g.input("x", Shape.of(DType.F32, 1, 4));
        Value w = g.param("w", Shape.of(DType.F32, 4, 2));
        g.setOutputs(g.matmul(x, w));
        return g;
    }

    @Test
    void quickstart_matmulGivesFourSix() {
        try (Session s = new Session(Device.VULKAN); CompiledGraph c = s.compile(quickstart())) {
            c.setParam("w", new float[] {1, 0, 0, 1, 1, 0, 0, 1});
            assertArrayEquals(new float[] {4, 6}, c.run(Map.of("x", new float[] {1, 2, 3, 4})).get(0));
        }
    }

    /** A tiled SGEMM of odd sizes (not multiples of the 16-wide tile) against a float64 product, |err| <= 1e-4 rel. */
    @Test
    void sgemm_oddSizes_matchesFloat64() {
        int m = 37;
        int k = 129;
        int n = 61;
        Graph g = new Graph("sgemm");
        Value a = g.input("a", Shape.of(DType.F32, m, k));
        Value b = g.input("b", Shape.of(DType.F32, k, n));
        g.setOutputs(g.matmul(a, b));
        Random r = new Random(7);
        float[] av = new float[m * k];
        float[] bv = new float[k * n];
        for (int i = 0; i < av.length; i++) {
            av[i] = r.nextFloat() * 2 - 1;
        }
        for (int i = 0; i < bv.length; i++) {
            bv[i] = r.nextFloat() * 2 - 1;
        }
        try (Session s = new Session(Device.VULKAN); CompiledGraph c = s.compile(g)) {
            float[] out = c.run(Map.of("a", av, "b", bv)).get(0);
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < n; j++) {
                    double ref = 0;
                    for (int p = 0; p < k; p++) {
                        ref += (double) av[i * k + p] * bv[p * n + j];
                    }
                    assertEquals(ref, out[i * n + j], 1e-4 * Math.max(1, Math.abs(ref)), "at " + i + "," + j);
                }
            }
        }
    }

    /** submit() returns before the device finishes; await() then gives the same result as run(). */
    @Test
    void submitThenAwait_givesTheResultOfRun() {
        try (Session s = new Session(Device.VULKAN); CompiledGraph c = s.compile(quickstart())) {
            c.setParam("w", new float[] {1, 0, 0, 1, 1, 0, 0, 1});
            c.setInput("x", new float[] {1, 2, 3, 4});
            c.submit();
            c.await();
            float[] out = new float[2];
            c.output(0).copyTo(out);
            assertArrayEquals(new float[] {4, 6}, out);
        }
    }

    @Test
    void steadyRun_allocatesNothingOnTheHeap() {
        try (Session s = new Session(Device.VULKAN); CompiledGraph c = s.compile(quickstart())) {
            c.setParam("w", new float[] {1, 0, 0, 1, 1, 0, 0, 1});
            float[] x = {1, 2, 3, 4};
            float[] out = new float[2];
            Allocations.assertSteadyStateAllocatesNothing("vulkan quickstart", () -> {
                c.setInput("x", x);
                c.run();
                c.output(0).copyTo(out);
            }, 500);
            assertArrayEquals(new float[] {4, 6}, out);
        }
    }

    /** Prints submit + wait of an empty command buffer's worth (a graph with no kernels) and of the quickstart. */
    @Test
    void perRunOverhead_isPrinted() {
        Graph empty = new Graph("empty");
        Value x = empty.input("x", Shape.of(DType.F32, 4));
        empty.setOutputs(empty.reshape(x, 2, 2));
        try (Session s = new Session(Device.VULKAN); CompiledGraph e = s.compile(empty);
             CompiledGraph q = s.compile(quickstart())) {
            q.setParam("w", new float[8]);
            e.setInput("x", new float[4]);
            q.setInput("x", new float[4]);
            double emptyUs = perRun(e);
            double quickUs = perRun(q);
            System.out.printf(Locale.ROOT, "Vulkan per-run overhead on %s: empty graph %.1f us, quickstart %.1f us%n",
                    s.backendName(), emptyUs, quickUs);
            assertTrue(quickUs > 0 && emptyUs > 0);
        }
    }

    private static double perRun(CompiledGraph c) {
        for (int i = 0; i < 200; i++) {
            c.run();
        }
        int runs = 2_000;
        long t0 = System.nanoTime();
        for (int i = 0; i < runs; i++) {
            c.run();
        }
        return (System.nanoTime() - t0) / 1e3 / runs;
    }

    @Test
    void devices_areListedAndChosenByType() {
        List<VulkanDeviceInfo> all = VulkanBackend.devices();
        assertTrue(all.stream().anyMatch(VulkanDeviceInfo::usable), all.toString());
        VulkanDeviceInfo cpu = new VulkanDeviceInfo(0, "llvmpipe", "cpu", "mesa", "1.3.0", List.of(), 8, 32768, 1024,
                true, null);
        VulkanDeviceInfo gpu = new VulkanDeviceInfo(1, "Big GPU", "discrete", "nv", "1.3.0", List.of(), 32, 49152,
                1024, true, null);
        assertEquals(gpu, VulkanContext.choose(List.of(cpu, gpu), null));
        assertEquals(cpu, VulkanContext.choose(List.of(cpu, gpu), "0"));
        assertEquals(cpu, VulkanContext.choose(List.of(cpu, gpu), "LLVM"));
        VulkanException e = assertThrows(VulkanException.class, () -> VulkanContext.choose(List.of(cpu, gpu), "amd"));
        assertTrue(e.getMessage().contains("RLX_VULKAN_DEVICE=amd") && e.getMessage().contains("llvmpipe"),
                e.getMessage());
    }

    @Test
    void anOpWithNoShader_isATypedErrorNamingTheNode() {
        Graph g = new Graph("fft");
        Value x = g.input("x", Shape.of(DType.F32, 8));
        g.setOutputs(g.fft(x, dev.rlx.ir.FftKind.R2C, 0, dev.rlx.ir.FftNorm.BACKWARD, 8));
        try (Session s = new Session(Device.VULKAN)) {
            UnsupportedOpException e = assertThrows(UnsupportedOpException.class, () -> s.compile(g));
            assertTrue(e.getMessage().contains("fft"), e.getMessage());
        }
    }
}
