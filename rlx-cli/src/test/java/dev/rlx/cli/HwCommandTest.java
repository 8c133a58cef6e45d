package dev.rlx.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.hw.HwSnapshot;
import dev.rlx.hw.HwSnapshot.Cache;
import dev.rlx.hw.HwSnapshot.NumaNode;
import dev.rlx.hw.HwSnapshot.Thermal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HwCommandTest {
    private static final long GIB = 1L << 30;
    private static final HwSnapshot SERVER = new HwSnapshot("Linux", "amd64", "Fake Xeon 9999", 2, 4, 8, 0, 6,
            List.of(new Cache(1, Cache.Type.DATA, 48 << 10, 64, 2, 4), new Cache(3, Cache.Type.UNIFIED, 32 << 20, 64, 4, 2)),
            List.of("avx2", "fma"), 256, 16 * GIB, 8 * GIB,
            List.of(new NumaNode(0, List.of(0, 1, 4, 5), 8 * GIB), new NumaNode(1, List.of(2, 3, 6, 7), 8 * GIB)),
            Thermal.UNKNOWN);
    private static final HwSnapshot UNKNOWNS = new HwSnapshot("Plan 9", "mips", "unknown", 0, 0, 1, 0, 1,
            List.of(new Cache(2, Cache.Type.UNIFIED, 1536 << 10, 0, 0, 0)), List.of(), 0, 0, 0, List.of(),
            new Thermal(Thermal.State.THROTTLED, 70, 100));

    @Test
    void text_showsEveryField() {
        Cli r = Cli.run(new HwCommand(() -> SERVER));
        assertEquals(0, r.exit());
        assertEquals("""
                host         Linux amd64
                cpu          Fake Xeon 9999
                topology     2 sockets, 4 cores, 8 logical CPUs (the JVM uses 6)
                caches       L1d 48 KiB x4 (line 64 B, shared by 2 CPUs)
                             L3  32 MiB x2 (line 64 B, shared by 4 CPUs)
                simd         avx2 fma
                vector api   256-bit preferred species (8 float lanes)
                memory       16 GiB total, 8 GiB available
                numa         node 0: CPUs 0-1,4-5, 8 GiB
                             node 1: CPUs 2-3,6-7, 8 GiB
                thermal      unknown (the OS reports no throttle state)
                fingerprint  %s
                """.formatted(SERVER.fingerprint()), r.out());
    }

    /** The Vulkan devices the loader lists come before the fingerprint, one line each; none is said so. */
    @Test
    void text_listsTheVulkanDevices() {
        dev.rlx.vulkan.VulkanDeviceInfo gpu = new dev.rlx.vulkan.VulkanDeviceInfo(0, "NVIDIA H200", "discrete",
                "NVIDIA 580.1", "1.4.312", List.of(new dev.rlx.vulkan.VulkanDeviceInfo.Heap(150L << 30, true)), 32,
                49152, 1024, true, null);
        String listed = Cli.run(new HwCommand(() -> SERVER, () -> List.of(gpu))).out();
        assertTrue(listed.endsWith("""
                vulkan       [0] NVIDIA H200 (discrete, NVIDIA 580.1, Vulkan 1.4.312): heaps 150.0 GiB local; \
                subgroup 32, shared 48 KiB, workgroup 1024
                fingerprint  %s
                """.formatted(SERVER.fingerprint())), listed);
        String none = Cli.run(new HwCommand(() -> SERVER, List::of)).out();
        assertTrue(none.contains("vulkan       no devices (no loader or driver)\nfingerprint"), none);
    }

    @Test
    void text_saysUnknownRatherThanZero() {
        Cli r = Cli.run(new HwCommand(() -> UNKNOWNS));
        assertEquals("""
                host         Plan 9 mips
                cpu          unknown
                topology     unknown sockets, unknown cores, 1 logical CPU (the JVM uses 1)
                caches       L2  1.5 MiB (line unknown, sharing unknown)
                simd         none known
                vector api   unavailable (run the JVM with --add-modules jdk.incubator.vector)
                memory       unknown total, unknown available
                numa         not reported
                thermal      throttled (CPU speed limit 70 %%, scheduler limit 100 %%)
                fingerprint  %s
                """.formatted(UNKNOWNS.fingerprint()), r.out());
    }

    @Test
    @SuppressWarnings("unchecked")
    void json_hasEveryFieldWithNullForUnknown() {
        Map<String, Object> j = JsonTree.object(Cli.run(new HwCommand(() -> SERVER), "--json").out());
        assertEquals("Fake Xeon 9999", j.get("cpu_model"));
        assertEquals(2L, j.get("sockets"));
        assertEquals(4L, j.get("physical_cores"));
        assertEquals(8L, j.get("logical_cpus"));
        assertEquals(6L, j.get("jvm_processors"));
        List<Map<String, Object>> caches = (List<Map<String, Object>>) j.get("caches");
        assertEquals(Map.of("name", "L1d", "level", 1L, "type", "data", "size_bytes", 49152L, "line_bytes", 64L,
                "shared_by_cpus", 2L, "instances", 4L), caches.get(0));
        assertEquals(List.of("avx2", "fma"), j.get("simd_features"));
        assertEquals(256L, j.get("vector_bit_size"));
        assertEquals(16 * GIB, j.get("mem_total_bytes"));
        assertEquals(8 * GIB, j.get("mem_available_bytes"));
        assertEquals(Map.of("id", 1L, "cpus", List.of(2L, 3L, 6L, 7L), "mem_total_bytes", 8 * GIB),
                ((List<Object>) j.get("numa_nodes")).get(1));
        assertEquals(SERVER.fingerprint(), j.get("fingerprint"));

        Map<String, Object> u = JsonTree.object(Cli.run(new HwCommand(() -> UNKNOWNS), "--json").out());
        assertNull(u.get("sockets"));
        assertNull(u.get("mem_total_bytes"));
        assertNull(u.get("vector_bit_size"));
        assertTrue(u.containsKey("sockets"), "unknown fields are present as null");
        Map<String, Object> cache = ((List<Map<String, Object>>) u.get("caches")).get(0);
        assertNull(cache.get("line_bytes"));
        assertNull(cache.get("shared_by_cpus"));
        assertEquals(Map.of("state", "throttled", "cpu_speed_limit_pct", 70L, "scheduler_limit_pct", 100L), u.get("thermal"));
    }

    @Test
    void thisMachine_throughMain() {
        Cli r = Cli.rlx("hw");
        assertEquals(0, r.exit(), r.err());
        HwSnapshot s = HwSnapshot.capture();
        assertTrue(r.out().startsWith("host         " + s.os() + " " + s.arch() + "\ncpu          " + s.cpuModel() + "\n"), r.out());
        assertTrue(r.out().endsWith("fingerprint  " + s.fingerprint() + "\n"), r.out());
        Map<String, Object> j = JsonTree.object(Cli.rlx("hw", "--json").out());
        assertEquals((long) s.logicalCpus(), j.get("logical_cpus"));
        assertEquals(s.fingerprint(), j.get("fingerprint"));
    }
}
