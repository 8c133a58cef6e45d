package dev.rlx.hw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.rlx.hw.HwSnapshot.Cache;
import dev.rlx.hw.HwSnapshot.Thermal;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import jdk.incubator.vector.FloatVector;
import org.junit.jupiter.api.Test;

/** {@link HwSnapshot#capture()} on this machine, checked against /proc and /sys read here independently. */
class HwSnapshotTest {
    private static final boolean LINUX = System.getProperty("os.name").startsWith("Linux");

    @Test
    void capture_describesTheJvmsHost() {
        HwSnapshot s = HwSnapshot.capture();
        assertEquals(System.getProperty("os.name"), s.os());
        assertFalse(s.arch().isEmpty());
        assertTrue(s.logicalCpus() >= 1);
        assertEquals(Runtime.getRuntime().availableProcessors(), s.jvmProcessors());
        assertEquals(FloatVector.SPECIES_PREFERRED.vectorBitSize(), s.vectorBitSize());
        assertTrue(s.memTotalBytes() > 0);
        assertTrue(s.memAvailableBytes() > 0 && s.memAvailableBytes() <= s.memTotalBytes());
    }

    @Test
    void fingerprint_isStableAcrossCaptures() {
        HwSnapshot a = HwSnapshot.capture();
        HwSnapshot b = HwSnapshot.capture();
        assertEquals(a.fingerprint(), b.fingerprint());
        assertTrue(a.fingerprint().matches("[0-9a-f]{16}"), a.fingerprint());
    }

    @Test
    void fingerprint_ignoresThermalAndAvailableMemoryButNotHardware() {
        HwSnapshot s = HwSnapshot.capture();
        HwSnapshot hot = new HwSnapshot(s.os(), s.arch(), s.cpuModel(), s.sockets(), s.physicalCores(), s.logicalCpus(),
                s.perfCores(), s.jvmProcessors() + 1, s.caches(), s.simdFeatures(), s.vectorBitSize(), s.memTotalBytes(),
                s.memAvailableBytes() / 2, s.numaNodes(), new Thermal(Thermal.State.THROTTLED, 50, 80));
        assertEquals(s.fingerprint(), hot.fingerprint());
        assertTrue(hot.isThrottled());
        HwSnapshot other = new HwSnapshot(s.os(), s.arch(), s.cpuModel() + " v2", s.sockets(), s.physicalCores(),
                s.logicalCpus(), s.perfCores(), s.jvmProcessors(), s.caches(), s.simdFeatures(), s.vectorBitSize(),
                s.memTotalBytes(), s.memAvailableBytes(), s.numaNodes(), s.thermal());
        assertNotEquals(s.fingerprint(), other.fingerprint());
        HwSnapshot moreMemory = new HwSnapshot(s.os(), s.arch(), s.cpuModel(), s.sockets(), s.physicalCores(),
                s.logicalCpus(), s.perfCores(), s.jvmProcessors(), s.caches(), s.simdFeatures(), s.vectorBitSize(),
                s.memTotalBytes() + 1, s.memAvailableBytes(), s.numaNodes(), s.thermal());
        assertNotEquals(s.fingerprint(), moreMemory.fingerprint());
    }

    @Test
    void linux_modelCpusAndFlagsMatchProcCpuinfo() throws IOException {
        assumeTrue(LINUX, "reads Linux /proc");
        HwSnapshot s = HwSnapshot.capture();
        List<String> lines = Files.readAllLines(Path.of("/proc/cpuinfo"));
        String model = value(lines, "model name");
        if (model != null) {
            assertEquals(model, s.cpuModel());
        }
        long processors = lines.stream().filter(l -> l.startsWith("processor")).count();
        assertEquals(processors, s.logicalCpus());
        String flags = value(lines, "flags") != null ? value(lines, "flags") : value(lines, "Features");
        Set<String> have = new HashSet<>(Arrays.asList(flags == null ? new String[0] : flags.split("\\s+")));
        for (String f : SimdFeatures.KNOWN) {
            assertEquals(have.contains(f), s.simdFeatures().contains(f), f);
        }
    }

    @Test
    void linux_topologyMatchesSysfs() throws IOException {
        assumeTrue(LINUX, "reads Linux /sys");
        HwSnapshot s = HwSnapshot.capture();
        Set<String> packages = new HashSet<>();
        Set<String> cores = new HashSet<>();
        try (Stream<Path> cpus = Files.list(Path.of("/sys/devices/system/cpu"))) {
            for (Path cpu : cpus.filter(p -> p.getFileName().toString().matches("cpu\\d+")).toList()) {
                Path topo = cpu.resolve("topology");
                if (Files.exists(topo.resolve("core_id"))) {
                    String pkg = Files.readString(topo.resolve("physical_package_id")).trim();
                    String die = Files.exists(topo.resolve("die_id")) ? Files.readString(topo.resolve("die_id")).trim() : "0";
                    packages.add(pkg);
                    cores.add(pkg + "/" + die + "/" + Files.readString(topo.resolve("core_id")).trim());
                }
            }
        }
        assumeTrue(!cores.isEmpty(), "this kernel exposes no CPU topology");
        assertEquals(packages.size(), s.sockets());
        assertEquals(cores.size(), s.physicalCores());
    }

    @Test
    void linux_memoryMatchesProcMeminfo() throws IOException {
        assumeTrue(LINUX, "reads Linux /proc");
        HwSnapshot s = HwSnapshot.capture();
        List<String> lines = Files.readAllLines(Path.of("/proc/meminfo"));
        assertEquals(kb(lines, "MemTotal") * 1024, s.memTotalBytes());
        long avail = kb(lines, "MemAvailable") * 1024;
        // MemAvailable moves between the two reads; 10% of total is far more than it moves in a test.
        assertTrue(Math.abs(avail - s.memAvailableBytes()) < s.memTotalBytes() / 10, avail + " vs " + s.memAvailableBytes());
    }

    @Test
    void linux_numaNodesMatchSysfs() throws IOException {
        assumeTrue(LINUX, "reads Linux /sys");
        HwSnapshot s = HwSnapshot.capture();
        List<Integer> ids = new ArrayList<>();
        Path nodes = Path.of("/sys/devices/system/node");
        if (Files.isDirectory(nodes)) {
            try (Stream<Path> st = Files.list(nodes)) {
                st.map(p -> p.getFileName().toString()).filter(n -> n.matches("node\\d+"))
                        .forEach(n -> ids.add(Integer.parseInt(n.substring(4))));
            }
        }
        ids.sort(null);
        assertEquals(ids, s.numaNodes().stream().map(HwSnapshot.NumaNode::id).toList());
        for (HwSnapshot.NumaNode n : s.numaNodes()) {
            String cpulist = Files.readString(nodes.resolve("node" + n.id()).resolve("cpulist")).trim();
            assertEquals(cpulist, n.cpuList());
        }
    }

    @Test
    void linux_cachesMatchSysfsOrGetconf() throws IOException, InterruptedException {
        assumeTrue(LINUX, "reads Linux /sys");
        HwSnapshot s = HwSnapshot.capture();
        Path cache = Path.of("/sys/devices/system/cpu/cpu0/cache");
        if (Files.isDirectory(cache)) {
            try (Stream<Path> st = Files.list(cache)) {
                for (Path index : st.filter(p -> p.getFileName().toString().matches("index\\d+")).toList()) {
                    int level = Integer.parseInt(Files.readString(index.resolve("level")).trim());
                    long size = LinuxHostProbe.parseSize(Files.readString(index.resolve("size"))).orElseThrow();
                    int shared = CpuList.parse(Files.readString(index.resolve("shared_cpu_list"))).orElseThrow().size();
                    assertTrue(s.caches().stream().anyMatch(c -> c.level() == level && c.sizeBytes() == size
                            && c.sharedByCpus() == shared), "cpu0 " + index.getFileName() + " in " + s.caches());
                }
            }
        } else { // no sysfs caches (e.g. this VM): the snapshot must agree with glibc's getconf
            assumeTrue(getconf("LEVEL1_DCACHE_SIZE") > 0, "neither sysfs nor getconf report caches");
            assertEquals(getconf("LEVEL1_DCACHE_SIZE"), s.l1dBytes());
            assertEquals(getconf("LEVEL1_DCACHE_LINESIZE"), s.cacheLineBytes());
            assertEquals(Math.max(0, getconf("LEVEL2_CACHE_SIZE")), s.l2Bytes());
            assertTrue(s.caches().stream().allMatch(c -> c.sharedByCpus() == 0), "sharing is unknown without sysfs");
        }
        for (Cache c : s.caches()) {
            assertTrue(c.sizeBytes() > 0 && c.level() >= 1, c.toString());
        }
    }

    private static long getconf(String name) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("getconf", name).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        try {
            return Long.parseLong(out);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static String value(List<String> lines, String key) {
        for (String l : lines) {
            int colon = l.indexOf(':');
            if (colon > 0 && l.substring(0, colon).trim().equals(key)) {
                return l.substring(colon + 1).trim();
            }
        }
        return null;
    }

    private static long kb(List<String> lines, String key) {
        return Long.parseLong(value(lines, key).split("\\s+")[0]);
    }
}
