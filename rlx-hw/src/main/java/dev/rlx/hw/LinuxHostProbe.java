package dev.rlx.hw;

import dev.rlx.hw.HwSnapshot.Cache;
import dev.rlx.hw.HwSnapshot.NumaNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.IntToLongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a Linux host from {@code /proc} and {@code /sys} under a root directory (the real {@code /} in production,
 * a fabricated tree in tests). Every file is optional and untrusted: missing or malformed values stay unknown.
 */
final class LinuxHostProbe {
    private static final Pattern NODE_DIR = Pattern.compile("node(\\d+)");
    private static final Pattern CACHE_DIR = Pattern.compile("index\\d+");
    private static final Pattern NODE_MEM_TOTAL = Pattern.compile("MemTotal:\\s*(\\d+)\\s*kB");

    private final Path root;
    private final IntToLongFunction sysconf;

    /**
     * @param root    directory holding {@code proc/} and {@code sys/}
     * @param sysconf the C library's {@code sysconf}, asked for cache sizes only when {@code /sys} has none
     */
    LinuxHostProbe(Path root, IntToLongFunction sysconf) {
        this.root = root;
        this.sysconf = sysconf;
    }

    /** Fills {@code b} (which holds the JVM's view) with what the OS files say, and builds the snapshot. */
    HwSnapshot probe(HwSnapshot.Builder b) {
        List<Map<String, String>> cpuinfo = cpuinfo();
        Map<String, String> first = cpuinfo.isEmpty() ? Map.of() : cpuinfo.get(0);
        b.cpuModel = cpuModel(first);
        String flags = first.getOrDefault("flags", first.getOrDefault("Features", ""));
        b.simdFeatures = SimdFeatures.select(Arrays.asList(flags.trim().split("\\s+")));

        List<Integer> cpus = read("sys/devices/system/cpu/online").flatMap(CpuList::parse)
                .orElseGet(() -> cpuinfoProcessors(cpuinfo));
        if (!cpus.isEmpty()) {
            b.logicalCpus = cpus.size();
        }
        topology(b, cpus, cpuinfo);
        b.caches = caches(cpus);
        if (b.caches.isEmpty()) {
            b.caches = sysconfCaches();
        }
        meminfo("proc/meminfo", "MemTotal").ifPresent(v -> b.memTotalBytes = v);
        meminfo("proc/meminfo", "MemAvailable").ifPresent(v -> b.memAvailableBytes = v);
        b.numaNodes = numaNodes();
        b.thermal = HwSnapshot.Thermal.UNKNOWN; // Linux has no "throttled now" flag; see HwSnapshot.Thermal
        return b.build();
    }

    // ---- /proc/cpuinfo ----

    /** One map per processor block; keys as the file spells them. */
    private List<Map<String, String>> cpuinfo() {
        List<Map<String, String>> blocks = new ArrayList<>();
        Map<String, String> cur = new LinkedHashMap<>();
        for (String line : read("proc/cpuinfo").orElse("").split("\n")) {
            int colon = line.indexOf(':');
            if (line.isBlank()) {
                if (!cur.isEmpty()) {
                    blocks.add(cur);
                    cur = new LinkedHashMap<>();
                }
            } else if (colon > 0) {
                cur.putIfAbsent(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
            }
        }
        if (!cur.isEmpty()) {
            blocks.add(cur);
        }
        return blocks;
    }

    private static String cpuModel(Map<String, String> first) {
        for (String key : List.of("model name", "Processor", "cpu model", "Hardware")) {
            String v = first.get(key);
            if (v != null && !v.isBlank()) {
                return v;
            }
        }
        // Arm kernels often name no model; the implementer and part numbers still identify the core.
        String impl = first.get("CPU implementer");
        String part = first.get("CPU part");
        return impl != null && part != null ? "Arm implementer " + impl + " part " + part : "unknown";
    }

    private static List<Integer> cpuinfoProcessors(List<Map<String, String>> cpuinfo) {
        List<Integer> out = new ArrayList<>();
        for (Map<String, String> m : cpuinfo) {
            parseInt(m.get("processor")).ifPresent(out::add);
        }
        return out;
    }

    // ---- topology ----

    private void topology(HwSnapshot.Builder b, List<Integer> cpus, List<Map<String, String>> cpuinfo) {
        Set<Integer> packages = new HashSet<>();
        Set<List<Integer>> cores = new HashSet<>();
        Map<Integer, List<Integer>> coreOf = new HashMap<>();
        for (int cpu : cpus) {
            String dir = "sys/devices/system/cpu/cpu" + cpu + "/topology/";
            Optional<Integer> pkg = readInt(dir + "physical_package_id");
            Optional<Integer> core = readInt(dir + "core_id");
            if (pkg.isPresent() && core.isPresent()) {
                // core_id is unique only within a die on some multi-die parts, so the die is part of the key.
                List<Integer> key = List.of(pkg.get(), readInt(dir + "die_id").orElse(0), core.get());
                packages.add(pkg.get());
                cores.add(key);
                coreOf.put(cpu, key);
            }
        }
        if (cores.isEmpty()) { // no sysfs topology: fall back to cpuinfo's "physical id" / "core id"
            for (Map<String, String> m : cpuinfo) {
                Optional<Integer> pkg = parseInt(m.get("physical id"));
                Optional<Integer> core = parseInt(m.get("core id"));
                Optional<Integer> cpu = parseInt(m.get("processor"));
                if (pkg.isPresent() && core.isPresent() && cpu.isPresent()) {
                    List<Integer> key = List.of(pkg.get(), 0, core.get());
                    packages.add(pkg.get());
                    cores.add(key);
                    coreOf.put(cpu.get(), key);
                }
            }
        }
        b.sockets = packages.size();
        b.physicalCores = cores.size();
        b.perfCores = perfCores(cpus, coreOf);
    }

    /** Physical cores of the fastest kind on a hybrid CPU, or 0 when every core is alike. */
    private int perfCores(List<Integer> cpus, Map<Integer, List<Integer>> coreOf) {
        // Intel hybrid parts list their P-core CPUs under the cpu_core PMU.
        Optional<List<Integer>> pCpus = read("sys/devices/cpu_core/cpus").flatMap(CpuList::parse);
        if (pCpus.isEmpty()) { // Arm big.LITTLE (and others): the scheduler's per-CPU capacity differs
            Map<Integer, Integer> capacity = new HashMap<>();
            for (int cpu : cpus) {
                readInt("sys/devices/system/cpu/cpu" + cpu + "/cpu_capacity").ifPresent(c -> capacity.put(cpu, c));
            }
            if (capacity.size() != cpus.size() || new HashSet<>(capacity.values()).size() < 2) {
                return 0;
            }
            int max = capacity.values().stream().max(Integer::compare).orElseThrow();
            pCpus = Optional.of(capacity.entrySet().stream().filter(e -> e.getValue() == max).map(Map.Entry::getKey).toList());
        }
        Set<List<Integer>> pCores = new HashSet<>();
        for (int cpu : pCpus.get()) {
            List<Integer> core = coreOf.get(cpu);
            if (core != null) {
                pCores.add(core);
            }
        }
        return pCores.size() < coreOf.values().stream().distinct().count() ? pCores.size() : 0;
    }

    // ---- caches ----

    private record CacheKey(int level, Cache.Type type, long size, int line, int sharedBy) {}

    private List<Cache> caches(List<Integer> cpus) {
        // Each instance appears once per CPU sharing it; its identity is (level, type, shared_cpu_list).
        Map<List<Object>, CacheKey> instances = new HashMap<>();
        for (int cpu : cpus) {
            Path dir = root.resolve("sys/devices/system/cpu/cpu" + cpu + "/cache");
            for (Path index : list(dir, CACHE_DIR)) {
                String rel = root.relativize(index) + "/";
                Optional<Integer> level = readInt(rel + "level");
                Optional<Cache.Type> type = read(rel + "type").flatMap(LinuxHostProbe::cacheType);
                OptionalLong size = read(rel + "size").map(LinuxHostProbe::parseSize).orElse(OptionalLong.empty());
                if (level.isEmpty() || type.isEmpty() || size.isEmpty() || level.get() < 1) {
                    continue;
                }
                Optional<List<Integer>> shared = read(rel + "shared_cpu_list").flatMap(CpuList::parse);
                int line = readInt(rel + "coherency_line_size").filter(v -> v > 0).orElse(0);
                Object identity = shared.<Object>map(s -> s).orElse("cpu" + cpu);
                instances.putIfAbsent(List.of(level.get(), type.get(), identity),
                        new CacheKey(level.get(), type.get(), size.getAsLong(), line, shared.map(List::size).orElse(0)));
            }
        }
        Map<CacheKey, Integer> counts = new TreeMap<>(Comparator.comparingInt(CacheKey::level)
                .thenComparing(CacheKey::type).thenComparingLong(CacheKey::size)
                .thenComparingInt(CacheKey::line).thenComparingInt(CacheKey::sharedBy));
        instances.values().forEach(k -> counts.merge(k, 1, Integer::sum));
        List<Cache> out = new ArrayList<>();
        counts.forEach((k, n) -> out.add(new Cache(k.level(), k.type(), k.size(), k.line(), k.sharedBy(), n)));
        return out;
    }

    private static Optional<Cache.Type> cacheType(String s) {
        return switch (s.trim()) {
            case "Data" -> Optional.of(Cache.Type.DATA);
            case "Instruction" -> Optional.of(Cache.Type.INSTRUCTION);
            case "Unified" -> Optional.of(Cache.Type.UNIFIED);
            default -> Optional.empty();
        };
    }

    /** Sizes as sysfs writes them: {@code 48K}, {@code 2048K}, {@code 32M}, or plain bytes. */
    static OptionalLong parseSize(String s) {
        String t = s.trim().toUpperCase(Locale.ROOT);
        long unit = 1;
        if (t.endsWith("K") || t.endsWith("M") || t.endsWith("G")) {
            unit = switch (t.charAt(t.length() - 1)) {
                case 'K' -> 1L << 10;
                case 'M' -> 1L << 20;
                default -> 1L << 30;
            };
            t = t.substring(0, t.length() - 1);
        }
        try {
            long v = Long.parseLong(t.trim());
            return v > 0 && v < (1L << 40) / unit ? OptionalLong.of(v * unit) : OptionalLong.empty();
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /** Sizes glibc derives from CPUID; it does not say which CPUs share a cache. */
    private List<Cache> sysconfCaches() {
        List<Cache> out = new ArrayList<>();
        addSysconf(out, 1, Cache.Type.DATA, Sysconf.LEVEL1_DCACHE_SIZE, Sysconf.LEVEL1_DCACHE_LINESIZE);
        addSysconf(out, 1, Cache.Type.INSTRUCTION, Sysconf.LEVEL1_ICACHE_SIZE, Sysconf.LEVEL1_ICACHE_LINESIZE);
        addSysconf(out, 2, Cache.Type.UNIFIED, Sysconf.LEVEL2_CACHE_SIZE, Sysconf.LEVEL2_CACHE_LINESIZE);
        addSysconf(out, 3, Cache.Type.UNIFIED, Sysconf.LEVEL3_CACHE_SIZE, Sysconf.LEVEL3_CACHE_LINESIZE);
        addSysconf(out, 4, Cache.Type.UNIFIED, Sysconf.LEVEL4_CACHE_SIZE, Sysconf.LEVEL4_CACHE_LINESIZE);
        return out;
    }

    private void addSysconf(List<Cache> out, int level, Cache.Type type, int sizeName, int lineName) {
        long size = sysconf.applyAsLong(sizeName);
        long line = sysconf.applyAsLong(lineName);
        if (size > 0) {
            out.add(new Cache(level, type, size, line > 0 && line <= 4096 ? (int) line : 0, 0, 0));
        }
    }

    // ---- memory and NUMA ----

    private OptionalLong meminfo(String file, String key) {
        for (String line : read(file).orElse("").split("\n")) {
            if (line.startsWith(key + ":")) {
                String[] parts = line.substring(key.length() + 1).trim().split("\\s+");
                try {
                    long kb = Long.parseLong(parts[0]);
                    return kb > 0 ? OptionalLong.of(kb * 1024) : OptionalLong.empty();
                } catch (NumberFormatException e) {
                    return OptionalLong.empty();
                }
            }
        }
        return OptionalLong.empty();
    }

    private List<NumaNode> numaNodes() {
        List<NumaNode> out = new ArrayList<>();
        for (Path dir : list(root.resolve("sys/devices/system/node"), NODE_DIR)) {
            Matcher m = NODE_DIR.matcher(dir.getFileName().toString());
            if (!m.matches()) {
                continue;
            }
            String rel = root.relativize(dir) + "/";
            List<Integer> cpus = read(rel + "cpulist").flatMap(CpuList::parse).orElse(List.of());
            long mem = 0;
            Matcher mm = NODE_MEM_TOTAL.matcher(read(rel + "meminfo").orElse(""));
            if (mm.find()) {
                mem = parseLong(mm.group(1)) * 1024;
            }
            try {
                out.add(new NumaNode(Integer.parseInt(m.group(1)), cpus, mem));
            } catch (NumberFormatException e) {
                // a node number too large for an int is not a node
            }
        }
        out.sort(Comparator.comparingInt(NumaNode::id));
        return out;
    }

    // ---- file access: every failure means "unknown" ----

    private Optional<String> read(String relative) {
        try {
            Path p = root.resolve(relative);
            // sysfs files are small; a huge one is not what we expect, so do not read it whole.
            if (!Files.isRegularFile(p) || Files.size(p) > (4 << 20)) {
                return Optional.empty();
            }
            return Optional.of(Files.readString(p, StandardCharsets.ISO_8859_1));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private Optional<Integer> readInt(String relative) {
        return read(relative).flatMap(s -> parseInt(s.trim()));
    }

    private static Optional<Integer> parseInt(String s) {
        try {
            return s == null ? Optional.empty() : Optional.of(Integer.parseInt(s.trim()));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static long parseLong(String s) {
        try {
            return Math.max(0, Long.parseLong(s));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static List<Path> list(Path dir, Pattern name) {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, p -> name.matcher(p.getFileName().toString()).matches())) {
            ds.forEach(out::add);
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
        out.sort(Comparator.comparing(Path::toString));
        return out;
    }
}
