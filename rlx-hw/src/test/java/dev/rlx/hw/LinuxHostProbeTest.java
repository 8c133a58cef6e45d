package dev.rlx.hw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.hw.HwSnapshot.Cache;
import dev.rlx.hw.HwSnapshot.NumaNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.function.IntToLongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Linux probe on fabricated /proc and /sys trees: layouts this test machine does not have. */
class LinuxHostProbeTest {
    private static final IntToLongFunction NO_SYSCONF = name -> -1;

    @TempDir
    Path root;

    private void file(String rel, String content) {
        try {
            Path p = root.resolve(rel);
            Files.createDirectories(p.getParent());
            Files.writeString(p, content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static HwSnapshot.Builder jvm() {
        HwSnapshot.Builder b = new HwSnapshot.Builder();
        b.os = "Linux";
        b.arch = "amd64";
        b.logicalCpus = 3;
        b.jvmProcessors = 3;
        b.memTotalBytes = 111;
        b.memAvailableBytes = 11;
        return b;
    }

    private HwSnapshot probe(IntToLongFunction sysconf) {
        return new LinuxHostProbe(root, sysconf).probe(jvm());
    }

    private void cpuinfo(int cpus, String model, String flags) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < cpus; i++) {
            s.append("processor\t: ").append(i).append("\nmodel name\t: ").append(model)
                    .append("\nflags\t\t: ").append(flags).append("\n\n");
        }
        file("proc/cpuinfo", s.toString());
    }

    private void cache(int cpu, int index, int level, String type, String size, String shared) {
        String dir = "sys/devices/system/cpu/cpu" + cpu + "/cache/index" + index + "/";
        file(dir + "level", level + "\n");
        file(dir + "type", type + "\n");
        file(dir + "size", size + "\n");
        file(dir + "coherency_line_size", "64\n");
        file(dir + "shared_cpu_list", shared + "\n");
    }

    private void topology(int cpu, int pkg, int core) {
        String dir = "sys/devices/system/cpu/cpu" + cpu + "/topology/";
        file(dir + "physical_package_id", pkg + "\n");
        file(dir + "core_id", core + "\n");
    }

    /** Two sockets of two SMT cores: CPUs {0,4} {1,5} on socket 0, {2,6} {3,7} on socket 1. */
    private void twoSocketServer() {
        cpuinfo(8, "Fake Xeon 9999", "fpu sse2 ht avx avx2 fma avx512f bogus");
        file("sys/devices/system/cpu/online", "0-7\n");
        for (int cpu = 0; cpu < 8; cpu++) {
            int pkg = (cpu % 4) / 2;
            int core = cpu % 2;
            topology(cpu, pkg, core);
            String siblings = (cpu % 4) + "," + (cpu % 4 + 4);
            String socket = pkg == 0 ? "0-1,4-5" : "2-3,6-7";
            cache(cpu, 0, 1, "Data", "48K", siblings);
            cache(cpu, 1, 1, "Instruction", "32K", siblings);
            cache(cpu, 2, 2, "Unified", "2048K", siblings);
            cache(cpu, 3, 3, "Unified", "32M", socket);
        }
        file("proc/meminfo", "MemTotal:       16384000 kB\nMemFree:         1000 kB\nMemAvailable:    8192000 kB\n");
        file("sys/devices/system/node/node0/cpulist", "0-1,4-5\n");
        file("sys/devices/system/node/node0/meminfo", "Node 0 MemTotal:       8192000 kB\nNode 0 MemFree: 1 kB\n");
        file("sys/devices/system/node/node1/cpulist", "2-3,6-7\n");
        file("sys/devices/system/node/node1/meminfo", "Node 1 MemTotal:       8192000 kB\n");
        file("sys/devices/system/node/online", "0-1\n"); // not a node directory
    }

    @Test
    void twoSocketServer_topologyCachesMemoryNuma() {
        twoSocketServer();
        HwSnapshot s = probe(NO_SYSCONF);
        assertEquals("Fake Xeon 9999", s.cpuModel());
        assertEquals(2, s.sockets());
        assertEquals(4, s.physicalCores());
        assertEquals(8, s.logicalCpus());
        assertEquals(3, s.jvmProcessors(), "the JVM's own count is kept");
        assertEquals(0, s.perfCores());
        assertEquals(List.of(
                new Cache(1, Cache.Type.DATA, 48 << 10, 64, 2, 4),
                new Cache(1, Cache.Type.INSTRUCTION, 32 << 10, 64, 2, 4),
                new Cache(2, Cache.Type.UNIFIED, 2 << 20, 64, 2, 4),
                new Cache(3, Cache.Type.UNIFIED, 32 << 20, 64, 4, 2)), s.caches());
        assertEquals(List.of("L1d", "L1i", "L2", "L3"), s.caches().stream().map(Cache::name).toList());
        assertEquals(48 << 10, s.l1dBytes());
        assertEquals(2 << 20, s.l2Bytes());
        assertEquals(64, s.cacheLineBytes());
        assertEquals(List.of("sse2", "avx", "avx2", "fma", "avx512f"), s.simdFeatures());
        assertEquals(16384000L * 1024, s.memTotalBytes());
        assertEquals(8192000L * 1024, s.memAvailableBytes());
        assertEquals(List.of(new NumaNode(0, List.of(0, 1, 4, 5), 8192000L * 1024),
                new NumaNode(1, List.of(2, 3, 6, 7), 8192000L * 1024)), s.numaNodes());
        assertEquals(HwSnapshot.Thermal.UNKNOWN, s.thermal(), "Linux reports no throttle flag");
    }

    @Test
    void armBigLittle_perfCoresFromCapacity() {
        file("proc/cpuinfo", "processor\t: 0\nFeatures\t: fp asimd asimdhp asimddp bf16 i8mm sve\nCPU implementer\t: 0x41\n"
                + "CPU part\t: 0xd0c\n\nprocessor\t: 1\n\n");
        file("sys/devices/system/cpu/online", "0-3");
        int[] capacity = {1024, 1024, 446, 446};
        for (int cpu = 0; cpu < 4; cpu++) {
            topology(cpu, 0, cpu);
            file("sys/devices/system/cpu/cpu" + cpu + "/cpu_capacity", capacity[cpu] + "\n");
        }
        HwSnapshot s = probe(NO_SYSCONF);
        assertEquals("Arm implementer 0x41 part 0xd0c", s.cpuModel());
        assertEquals(4, s.physicalCores());
        assertEquals(2, s.perfCores());
        assertEquals(List.of("asimd", "asimdhp", "asimddp", "bf16", "i8mm", "sve"), s.simdFeatures());
    }

    @Test
    void intelHybrid_perfCoresFromCpuCorePmu() {
        cpuinfo(6, "Fake Core i7", "avx2");
        file("sys/devices/system/cpu/online", "0-5");
        int[] core = {0, 0, 4, 4, 8, 9}; // two P cores with SMT, two E cores
        for (int cpu = 0; cpu < 6; cpu++) {
            topology(cpu, 0, core[cpu]);
        }
        file("sys/devices/cpu_core/cpus", "0-3\n");
        HwSnapshot s = probe(NO_SYSCONF);
        assertEquals(4, s.physicalCores());
        assertEquals(6, s.logicalCpus());
        assertEquals(2, s.perfCores());
    }

    @Test
    void uniformCapacity_isNotHybrid() {
        file("sys/devices/system/cpu/online", "0-1");
        for (int cpu = 0; cpu < 2; cpu++) {
            topology(cpu, 0, cpu);
            file("sys/devices/system/cpu/cpu" + cpu + "/cpu_capacity", "1024");
        }
        assertEquals(0, probe(NO_SYSCONF).perfCores());
    }

    @Test
    void noSysfsTopology_fallsBackToCpuinfoIds() {
        file("proc/cpuinfo", "processor : 0\nphysical id : 0\ncore id : 0\n\nprocessor : 1\nphysical id : 0\ncore id : 0\n\n"
                + "processor : 2\nphysical id : 1\ncore id : 0\n\n");
        HwSnapshot s = probe(NO_SYSCONF);
        assertEquals(3, s.logicalCpus(), "processors counted from cpuinfo when /sys has no online list");
        assertEquals(2, s.sockets());
        assertEquals(2, s.physicalCores());
    }

    @Test
    void noSysfsCaches_usesSysconfWithSharingUnknown() {
        Map<Integer, Long> values = Map.of(Sysconf.LEVEL1_DCACHE_SIZE, 49152L, Sysconf.LEVEL1_DCACHE_LINESIZE, 64L,
                Sysconf.LEVEL2_CACHE_SIZE, 1048576L, Sysconf.LEVEL2_CACHE_LINESIZE, 64L, Sysconf.LEVEL3_CACHE_SIZE, 0L);
        HwSnapshot s = probe(name -> values.getOrDefault(name, -1L));
        assertEquals(List.of(new Cache(1, Cache.Type.DATA, 49152, 64, 0, 0), new Cache(2, Cache.Type.UNIFIED, 1048576, 64, 0, 0)),
                s.caches());
    }

    @Test
    void emptyRoot_keepsTheJvmViewAndReportsUnknowns() {
        HwSnapshot s = probe(NO_SYSCONF);
        assertEquals("unknown", s.cpuModel());
        assertEquals(3, s.logicalCpus());
        assertEquals(0, s.sockets());
        assertEquals(0, s.physicalCores());
        assertEquals(List.of(), s.caches());
        assertEquals(List.of(), s.simdFeatures());
        assertEquals(111, s.memTotalBytes());
        assertEquals(11, s.memAvailableBytes());
        assertEquals(List.of(), s.numaNodes());
        assertEquals(0, s.l1dBytes());
        assertEquals(0, s.cacheLineBytes());
    }

    @Test
    void malformedFiles_areUnknownNotErrors() {
        file("proc/cpuinfo", "no colon here\n:\n\n\n");
        file("sys/devices/system/cpu/online", "0-x");
        file("proc/meminfo", "MemTotal: lots kB\nMemAvailable: -5 kB\n");
        file("sys/devices/system/cpu/cpu0/topology/physical_package_id", "zero");
        file("sys/devices/system/cpu/cpu0/topology/core_id", "");
        cache(0, 0, 1, "Data", "48Q", "0");
        cache(0, 1, 0, "Data", "48K", "0");
        cache(0, 2, 2, "Sideways", "1M", "0");
        file("sys/devices/system/node/node99999999999/cpulist", "0");
        file("sys/devices/system/node/node1/cpulist", "banana");
        HwSnapshot s = probe(NO_SYSCONF);
        assertEquals("unknown", s.cpuModel());
        assertEquals(3, s.logicalCpus());
        assertEquals(0, s.physicalCores());
        assertEquals(List.of(), s.caches());
        assertEquals(111, s.memTotalBytes());
        assertEquals(List.of(new NumaNode(1, List.of(), 0)), s.numaNodes());
    }

    @Test
    void randomBytes_neverThrow() {
        Random r = new Random(7);
        for (int round = 0; round < 50; round++) {
            for (String f : List.of("proc/cpuinfo", "proc/meminfo", "sys/devices/system/cpu/online",
                    "sys/devices/system/cpu/cpu0/topology/core_id", "sys/devices/system/cpu/cpu0/cache/index0/size",
                    "sys/devices/system/cpu/cpu0/cache/index0/level", "sys/devices/system/node/node0/meminfo")) {
                byte[] junk = new byte[r.nextInt(200)];
                r.nextBytes(junk);
                file(f, new String(junk, java.nio.charset.StandardCharsets.ISO_8859_1));
            }
            HwSnapshot s = probe(NO_SYSCONF);
            assertTrue(s.logicalCpus() > 0);
        }
    }

    @Test
    void parseSize_unitsAndLimits() {
        assertEquals(OptionalLong.of(48 << 10), LinuxHostProbe.parseSize("48K"));
        assertEquals(OptionalLong.of(32L << 20), LinuxHostProbe.parseSize("32M\n"));
        assertEquals(OptionalLong.of(1L << 30), LinuxHostProbe.parseSize("1G"));
        assertEquals(OptionalLong.of(512), LinuxHostProbe.parseSize("512"));
        assertTrue(LinuxHostProbe.parseSize("0K").isEmpty());
        assertTrue(LinuxHostProbe.parseSize("99999999999999999K").isEmpty());
        assertTrue(LinuxHostProbe.parseSize("K").isEmpty());
    }
}
