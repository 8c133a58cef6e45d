package dev.rlx.vulkan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.ir.RlxException;
import dev.rlx.runtime.RngOptions;
import dev.rlx.runtime.Session;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * RngUniform and RngNormal on Vulkan against the CPU backend's values for the same options: uniforms bit for bit;
 * normals within one f32 ulp (rng.comp's double log is not StrictMath's fdlibm log, so the double result may differ
 * in its last bits and, rarely, flip the f32 rounding), and bit-identical for all but a small fraction.
 */
class VulkanRngTest {
    private static final int[] SIZES = {1, 3, 7, 4099, 50_001};
    private static final long[] SEEDS = {0, 42, -7, 0x123456789ABCDEFL};

    @BeforeAll
    static void needsADevice() {
        Assumptions.assumeTrue(Device.VULKAN.isAvailable(), VulkanTestDevice.MISSING);
    }

    private static Graph graph(int size) {
        Graph g = new Graph("rng");
        Shape s = Shape.of(DType.F32, size);
        g.setOutputs(g.rngUniform(-1.5f, 3f, s), g.rngNormal(0.25f, 2f, s), g.rngUniform(0f, 1f, s, 99));
        return g;
    }

    private static List<float[]> draw(Device d, int size, RngOptions o, int runs) {
        try (Session s = new Session(d); CompiledGraph c = s.compile(graph(size), CompileOptions.defaults().withRng(o))) {
            List<float[]> out = null;
            for (int r = 0; r < runs; r++) {
                out = c.run(Map.of());
            }
            return out;
        }
    }

    private static void assertSameAsCpu(List<float[]> cpu, List<float[]> vk, String what) {
        assertEquals(cpu.size(), vk.size());
        int flipped = 0;
        int total = 0;
        for (int o = 0; o < cpu.size(); o++) {
            float[] a = cpu.get(o);
            float[] b = vk.get(o);
            for (int i = 0; i < a.length; i++) {
                if (o != 1) {
                    assertEquals(Float.floatToRawIntBits(a[i]), Float.floatToRawIntBits(b[i]),
                            what + " uniform output " + o + " at " + i + ": " + a[i] + " vs " + b[i]);
                } else {
                    assertEquals(a[i], b[i], Math.ulp(a[i]), what + " normal at " + i);
                    flipped += a[i] == b[i] ? 0 : 1;
                    total++;
                }
            }
        }
        assertTrue(flipped <= Math.max(1, total / 1000), what + ": " + flipped + " of " + total
                + " normals differ from the CPU's (at most 1 in 1,000 expected)");
    }

    @Test
    void philox_matchesTheCpu_forSeedsAndOddSizes() {
        for (long seed : SEEDS) {
            for (int size : SIZES) {
                RngOptions o = RngOptions.philox(seed);
                assertSameAsCpu(draw(Device.CPU, size, o, 1), draw(Device.VULKAN, size, o, 1),
                        "seed " + seed + " size " + size);
            }
        }
    }

    @Test
    void advancingStreams_matchTheCpusThirdRun_andDifferFromTheFirst() {
        RngOptions o = RngOptions.philox(5).withAdvanceAcrossRuns(true);
        List<float[]> third = draw(Device.VULKAN, 1001, o, 3);
        assertSameAsCpu(draw(Device.CPU, 1001, o, 3), third, "third run");
        assertFalse(third.get(0)[0] == draw(Device.VULKAN, 1001, o, 1).get(0)[0], "the stream did not advance");
    }

    @Test
    void setRng_restartsTheStreams_andZeroWritesMeans() {
        try (Session s = new Session(Device.VULKAN);
             CompiledGraph c = s.compile(graph(13), CompileOptions.defaults()
                     .withRng(RngOptions.philox(1).withAdvanceAcrossRuns(true)))) {
            c.run(Map.of());
            c.run(Map.of());
            c.setRng(RngOptions.philox(9));
            assertSameAsCpu(draw(Device.CPU, 13, RngOptions.philox(9), 1), c.run(Map.of()), "after setRng");
            c.setRng(RngOptions.zero());
            List<float[]> z = c.run(Map.of());
            for (int i = 0; i < 13; i++) {
                assertEquals(0.75f, z.get(0)[i]);
                assertEquals(0.25f, z.get(1)[i]);
                assertEquals(0.5f, z.get(2)[i]);
            }
        }
    }

    @Test
    void ortGenerator_isATypedError() {
        try (Session s = new Session(Device.VULKAN)) {
            assertThrows(RlxException.class, () -> s.compile(graph(5), CompileOptions.defaults()
                    .withRng(RngOptions.ort(1))).close());
        }
    }
}
