package dev.rlx.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.hw.GpuTelemetry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GpuCommandTest {
    private static final String NO_NVML = "/nonexistent/libnvidia-ml.so";
    private static final String NO_ROCM = "/nonexistent/librocm_smi64.so";

    private static GpuCommand none() {
        return new GpuCommand(GpuTelemetry.withLibraries(NO_NVML, NO_ROCM));
    }

    private static GpuCommand fake() {
        return new GpuCommand(GpuTelemetry.withLibraries(FakeNvml.path().toString(), NO_ROCM));
    }

    @Test
    void noLibraries_saysWhy() {
        Cli r = Cli.run(none());
        assertEquals(0, r.exit());
        assertEquals("no GPUs found (NVML: library not found; ROCm SMI: library not found)\n", r.out());
    }

    @Test
    void noLibraries_json() {
        Map<String, Object> j = JsonTree.object(Cli.run(none(), "--json").out());
        assertEquals(Map.of("gpus", List.of(), "sources", Map.of("NVML", "library not found", "ROCm SMI", "library not found")), j);
    }

    @Test
    void fakeNvml_table() {
        Cli r = Cli.run(fake());
        assertEquals(0, r.exit(), r.err());
        assertEquals("""
                GPU     NAME                   TEMP  HOTSPOT  POWER    CAP    SM CLOCK  MEM CLOCK  FAN   UTIL
                cuda:0  RLX Fake H100          61 C  -        123.5 W  300 W  1410 MHz  1215 MHz   42 %  87 %
                cuda:1  RLX Fake L4 (passive)  45 C  -        -        72 W   2040 MHz  6251 MHz   -     3 %
                """, r.out());
    }

    @Test
    @SuppressWarnings("unchecked")
    void fakeNvml_json() {
        Map<String, Object> j = JsonTree.object(Cli.run(fake(), "--json").out());
        List<Map<String, Object>> gpus = (List<Map<String, Object>>) j.get("gpus");
        assertEquals(2, gpus.size());
        Map<String, Object> h100 = gpus.get(0);
        assertEquals("cuda", h100.get("device"));
        assertEquals(0L, h100.get("index"));
        assertEquals("RLX Fake H100", h100.get("name"));
        assertEquals(61.0, h100.get("temp_c"));
        assertEquals(123.456, h100.get("power_w"));
        assertEquals(300.0, h100.get("power_cap_w"));
        assertEquals(123.456 / 300.0, (double) h100.get("power_headroom"), 1e-12);
        assertEquals(1410L, h100.get("sm_clock_mhz"));
        assertEquals(1215L, h100.get("mem_clock_mhz"));
        assertEquals(42L, h100.get("fan_percent"));
        assertEquals(87L, h100.get("util_percent"));
        assertEquals(35L, h100.get("mem_util_percent"));
        Map<String, Object> l4 = gpus.get(1);
        for (String absent : List.of("hotspot_c", "mem_temp_c", "power_w", "power_headroom", "fan_percent")) {
            assertTrue(l4.containsKey(absent) && l4.get(absent) == null, absent + " in " + l4);
        }
        assertEquals("2 devices (" + FakeNvml.path() + ")", ((Map<String, Object>) j.get("sources")).get("NVML"));
    }

    @Test
    void watch_refreshesCountTimes() {
        Cli r = Cli.run(fake(), "--watch", "0.01", "--count", "3");
        assertEquals(0, r.exit(), r.err());
        String[] blocks = r.out().split("(?m)^rlx gpu, every 0\\.01 s: ");
        assertEquals(4, blocks.length, r.out()); // text before the first header is empty
        for (int i = 1; i < blocks.length; i++) {
            assertTrue(blocks[i].contains("cuda:1  RLX Fake L4 (passive)"), blocks[i]);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void watchJson_isOneObjectPerLine() {
        Cli r = Cli.run(fake(), "--json", "--watch=0.01", "--count=2");
        String[] lines = r.out().split("\n");
        assertEquals(2, lines.length, r.out());
        for (String line : lines) {
            Map<String, Object> j = JsonTree.object(line);
            assertTrue(((String) j.get("time")).matches("\\d{4}-\\d\\d-\\d\\dT.*Z"), line);
            assertEquals(2, ((List<Object>) j.get("gpus")).size());
        }
    }

    @Test
    void badWatchOrCount_isAUsageError() {
        Cli r = Cli.run(none(), "--watch", "0");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("--watch must be over 0 and at most 86400 but is 0.0"), r.err());
        Cli c = Cli.run(none(), "--watch", "--count", "-1");
        assertEquals(2, c.exit());
        assertTrue(c.err().startsWith("rlx gpu: --count must be at least 0 but is -1; see 'rlx gpu --help'"), c.err());
    }

    @Test
    void registeredInMain() {
        Cli r = Cli.rlx("gpu", "--help");
        assertEquals(0, r.exit());
        assertTrue(r.out().contains("--watch[=SECONDS]") && r.out().contains("--json") && r.out().contains("--count"), r.out());
        assertTrue(Cli.rlx("--help").out().contains("gpu"));
    }
}
