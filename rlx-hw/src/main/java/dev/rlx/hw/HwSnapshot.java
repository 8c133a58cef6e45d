package dev.rlx.hw;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * What the host machine is: CPU model and topology, caches, SIMD features, memory, NUMA nodes and thermal state.
 *
 * <p>Read from the operating system ({@code /proc} and {@code /sys} on Linux, {@code sysctl} and {@code pmset} on
 * macOS); elsewhere only the JVM's view (OS, architecture, processors, memory) is known. Numbers the OS does not
 * report are 0 and read as "unknown"; {@link #capture()} never throws.
 *
 * @param os                the JVM's {@code os.name}, e.g. {@code "Linux"}
 * @param arch              the JVM's {@code os.arch}, e.g. {@code "amd64"}, {@code "aarch64"}
 * @param cpuModel          the CPU's brand string, or {@code "unknown"}
 * @param sockets           CPU packages (0 = unknown)
 * @param physicalCores     cores, not counting SMT threads (0 = unknown)
 * @param logicalCpus       online logical CPUs
 * @param perfCores         physical performance cores on a hybrid (P/E) CPU; 0 when all cores are alike or unknown
 * @param jvmProcessors     what {@link Runtime#availableProcessors()} says (cgroup quotas and affinity can make it
 *                          smaller than {@code logicalCpus})
 * @param caches            one entry per distinct cache kind, smallest level first; empty when unknown
 * @param simdFeatures      SIMD features relevant to ML kernels, named as Linux's {@code /proc/cpuinfo} names them
 * @param vectorBitSize     bits of the Vector API's preferred float species (0 when the module is absent)
 * @param memTotalBytes     physical memory (0 = unknown)
 * @param memAvailableBytes memory available to new work without swapping (0 = unknown); changes from capture to capture
 * @param numaNodes         NUMA nodes with their CPUs; empty when the OS reports none
 * @param thermal           whether the OS says the CPU is throttled; changes from capture to capture
 */
public record HwSnapshot(String os, String arch, String cpuModel, int sockets, int physicalCores, int logicalCpus,
        int perfCores, int jvmProcessors, List<Cache> caches, List<String> simdFeatures, int vectorBitSize,
        long memTotalBytes, long memAvailableBytes, List<NumaNode> numaNodes, Thermal thermal) {

    public HwSnapshot {
        Objects.requireNonNull(os, "os");
        Objects.requireNonNull(arch, "arch");
        Objects.requireNonNull(cpuModel, "cpuModel");
        caches = List.copyOf(caches);
        simdFeatures = List.copyOf(simdFeatures);
        numaNodes = List.copyOf(numaNodes);
        Objects.requireNonNull(thermal, "thermal");
    }

    /**
     * One kind of cache: every instance of it has this size and line and is shared by this many logical CPUs.
     *
     * @param level        1, 2, 3 ...
     * @param type         data, instruction or unified
     * @param sizeBytes    size of one instance
     * @param lineBytes    coherency line size (0 = unknown)
     * @param sharedByCpus logical CPUs sharing one instance (0 = unknown)
     * @param instances    how many instances the machine has (0 = unknown)
     */
    public record Cache(int level, Type type, long sizeBytes, int lineBytes, int sharedByCpus, int instances) {
        public Cache {
            Objects.requireNonNull(type, "type");
        }

        /** What a cache holds. */
        public enum Type {
            DATA("d"), INSTRUCTION("i"), UNIFIED("");

            private final String suffix;

            Type(String suffix) {
                this.suffix = suffix;
            }
        }

        /** The usual short name: {@code L1d}, {@code L1i}, {@code L2}, {@code L3}. */
        public String name() {
            return "L" + level + type.suffix;
        }
    }

    /**
     * A NUMA node.
     *
     * @param id            the OS's node number
     * @param cpus          its logical CPUs, ascending
     * @param memTotalBytes memory attached to it (0 = unknown)
     */
    public record NumaNode(int id, List<Integer> cpus, long memTotalBytes) {
        public NumaNode {
            cpus = List.copyOf(cpus);
        }

        /** The CPUs in the kernel's list format, e.g. {@code "0-3,8"}. */
        public String cpuList() {
            return CpuList.format(cpus);
        }
    }

    /**
     * The host's thermal state. Only macOS reports one ({@code pmset -g therm}); on Linux it is {@code UNKNOWN},
     * since no kernel file says "throttled now" (temperatures and frequency ratios are not that).
     *
     * @param state              nominal, throttled or unknown
     * @param cpuSpeedLimitPct   the OS's CPU speed limit in percent (0 = not reported)
     * @param schedulerLimitPct  the OS's scheduler limit in percent (0 = not reported)
     */
    public record Thermal(State state, int cpuSpeedLimitPct, int schedulerLimitPct) {
        /** No thermal information. */
        public static final Thermal UNKNOWN = new Thermal(State.UNKNOWN, 0, 0);

        public Thermal {
            Objects.requireNonNull(state, "state");
        }

        /** Nominal, throttled or unknown. */
        public enum State { NOMINAL, THROTTLED, UNKNOWN }
    }

    /** Reads the host now. Never throws: what cannot be read is reported as unknown. */
    public static HwSnapshot capture() {
        Builder base = Builder.fromJvm();
        try {
            if (base.os.startsWith("Linux")) {
                return new LinuxHostProbe(Path.of("/"), Sysconf::get).probe(base);
            }
            if (base.os.startsWith("Mac")) {
                return MacHostProbe.probe(base, MacHostProbe::run);
            }
        } catch (RuntimeException | LinkageError e) {
            // A probe that trips over an unexpected file layout must not take the caller down; report the JVM's view.
        }
        return base.build();
    }

    /** Whether the OS reports the CPU as throttled. */
    public boolean isThrottled() {
        return thermal.state() == Thermal.State.THROTTLED;
    }

    /** Size of one L1 data cache, or 0 when unknown. */
    public long l1dBytes() {
        return cacheBytes(1, Cache.Type.DATA);
    }

    /** Size of one L2 cache, or 0 when unknown. */
    public long l2Bytes() {
        return cacheBytes(2, Cache.Type.UNIFIED);
    }

    /** The L1 data cache's line size, or 0 when unknown. */
    public int cacheLineBytes() {
        return caches.stream().filter(c -> c.level() == 1 && c.type() == Cache.Type.DATA)
                .mapToInt(Cache::lineBytes).findFirst().orElse(0);
    }

    private long cacheBytes(int level, Cache.Type type) {
        // On a hybrid CPU the same level has several sizes; the largest is the performance cores'.
        return caches.stream().filter(c -> c.level() == level && c.type() == type)
                .mapToLong(Cache::sizeBytes).max().orElse(0);
    }

    /**
     * A stable 64-bit identity of this machine as 16 hex digits: SHA-256 over every field that describes the hardware,
     * leaving out what changes between captures (available memory, thermal state) and what depends on the process
     * ({@code jvmProcessors}). Two captures on one machine give the same value; use it to key calibration caches.
     */
    public String fingerprint() {
        StringBuilder s = new StringBuilder();
        s.append("os=").append(os).append("\narch=").append(arch).append("\ncpu=").append(cpuModel)
                .append("\nsockets=").append(sockets).append("\ncores=").append(physicalCores)
                .append("\nlogical=").append(logicalCpus).append("\nperf=").append(perfCores).append("\ncaches=");
        for (Cache c : caches) {
            s.append(c.name()).append(':').append(c.sizeBytes()).append(':').append(c.lineBytes()).append(':')
                    .append(c.sharedByCpus()).append(':').append(c.instances()).append(';');
        }
        s.append("\nsimd=").append(String.join(",", simdFeatures)).append("\nvector=").append(vectorBitSize)
                .append("\nmem=").append(memTotalBytes).append("\nnuma=");
        for (NumaNode n : numaNodes) {
            s.append(n.id()).append(':').append(n.cpuList()).append(';');
        }
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** Mutable fields the probes fill in; starts from what the JVM itself knows. */
    static final class Builder {
        String os = "unknown";
        String arch = "unknown";
        String cpuModel = "unknown";
        int sockets;
        int physicalCores;
        int logicalCpus;
        int perfCores;
        int jvmProcessors;
        List<Cache> caches = new ArrayList<>();
        List<String> simdFeatures = new ArrayList<>();
        int vectorBitSize;
        long memTotalBytes;
        long memAvailableBytes;
        List<NumaNode> numaNodes = new ArrayList<>();
        Thermal thermal = Thermal.UNKNOWN;

        static Builder fromJvm() {
            Builder b = new Builder();
            b.os = System.getProperty("os.name", "unknown");
            b.arch = System.getProperty("os.arch", "unknown").toLowerCase(Locale.ROOT);
            b.jvmProcessors = Runtime.getRuntime().availableProcessors();
            b.logicalCpus = b.jvmProcessors;
            b.vectorBitSize = SimdFeatures.preferredVectorBits();
            if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean m) {
                b.memTotalBytes = Math.max(0, m.getTotalMemorySize());
                b.memAvailableBytes = Math.max(0, m.getFreeMemorySize());
            }
            return b;
        }

        HwSnapshot build() {
            return new HwSnapshot(os, arch, cpuModel, sockets, physicalCores, logicalCpus, perfCores, jvmProcessors,
                    caches, simdFeatures, vectorBitSize, memTotalBytes, memAvailableBytes, numaNodes, thermal);
        }
    }
}
