package dev.rlx.hw;

import dev.rlx.hw.HwSnapshot.Cache;
import dev.rlx.hw.HwSnapshot.Thermal;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a macOS host with {@code sysctl}, {@code vm_stat} and {@code pmset -g therm}. Best effort: the parsing is
 * tested on recorded output, the commands only on a Mac.
 */
final class MacHostProbe {
    static final List<String> SYSCTL_KEYS = List.of("machdep.cpu.brand_string", "hw.packages", "hw.physicalcpu",
            "hw.logicalcpu", "hw.nperflevels", "hw.perflevel0.physicalcpu", "hw.perflevel0.cpusperl2",
            "hw.l1dcachesize", "hw.l1icachesize", "hw.l2cachesize", "hw.l3cachesize", "hw.cachelinesize", "hw.memsize",
            "machdep.cpu.features", "machdep.cpu.leaf7_features", "hw.optional.AdvSIMD", "hw.optional.arm.FEAT_FP16",
            "hw.optional.arm.FEAT_DotProd", "hw.optional.arm.FEAT_BF16", "hw.optional.arm.FEAT_I8MM",
            "hw.optional.arm.FEAT_SME");
    /** Apple's feature sysctls and the Linux names {@link SimdFeatures} reports them by. */
    private static final Map<String, String> ARM_FEATURES = Map.of("hw.optional.AdvSIMD", "asimd",
            "hw.optional.arm.FEAT_FP16", "asimdhp", "hw.optional.arm.FEAT_DotProd", "asimddp",
            "hw.optional.arm.FEAT_BF16", "bf16", "hw.optional.arm.FEAT_I8MM", "i8mm", "hw.optional.arm.FEAT_SME", "sme");
    private static final Pattern PAGE_SIZE = Pattern.compile("page size of (\\d+) bytes");
    private static final Pattern VM_PAGES = Pattern.compile("Pages (free|inactive|speculative):\\s+(\\d+)");
    private static final Pattern SPEED_LIMIT = Pattern.compile("CPU_Speed_Limit\\s*=\\s*(\\d+)");
    private static final Pattern SCHED_LIMIT = Pattern.compile("CPU_Scheduler_Limit\\s*=\\s*(\\d+)");

    private MacHostProbe() {}

    /**
     * Fills {@code b} from the commands' output.
     *
     * @param run runs a command and returns its standard output, or empty when it failed
     */
    static HwSnapshot probe(HwSnapshot.Builder b, Function<List<String>, Optional<String>> run) {
        List<String> cmd = new ArrayList<>(List.of("sysctl"));
        cmd.addAll(SYSCTL_KEYS);
        Map<String, String> s = parseSysctl(run.apply(cmd).orElse(""));
        b.cpuModel = s.getOrDefault("machdep.cpu.brand_string", b.cpuModel);
        b.sockets = num(s, "hw.packages");
        b.physicalCores = num(s, "hw.physicalcpu");
        if (num(s, "hw.logicalcpu") > 0) {
            b.logicalCpus = num(s, "hw.logicalcpu");
        }
        b.perfCores = num(s, "hw.nperflevels") > 1 ? num(s, "hw.perflevel0.physicalcpu") : 0;
        int line = num(s, "hw.cachelinesize");
        int threadsPerCore = b.physicalCores > 0 ? Math.max(1, b.logicalCpus / b.physicalCores) : 0;
        addCache(b, 1, Cache.Type.DATA, s, "hw.l1dcachesize", line, threadsPerCore);
        addCache(b, 1, Cache.Type.INSTRUCTION, s, "hw.l1icachesize", line, threadsPerCore);
        addCache(b, 2, Cache.Type.UNIFIED, s, "hw.l2cachesize", line, num(s, "hw.perflevel0.cpusperl2"));
        addCache(b, 3, Cache.Type.UNIFIED, s, "hw.l3cachesize", line, 0);
        b.simdFeatures = SimdFeatures.select(features(s));
        long mem = longNum(s, "hw.memsize");
        if (mem > 0) {
            b.memTotalBytes = mem;
        }
        long avail = parseVmStat(run.apply(List.of("vm_stat")).orElse(""));
        if (avail > 0) {
            b.memAvailableBytes = avail;
        }
        b.thermal = run.apply(List.of("pmset", "-g", "therm")).map(MacHostProbe::parsePmsetTherm).orElse(Thermal.UNKNOWN);
        return b.build();
    }

    /** {@code key: value} lines, as {@code sysctl} prints them without {@code -n}. */
    static Map<String, String> parseSysctl(String out) {
        Map<String, String> m = new HashMap<>();
        for (String line : out.split("\n")) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                m.put(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
            }
        }
        return m;
    }

    /** Free + inactive + speculative pages, in bytes (what macOS can hand out without swapping); 0 if unknown. */
    static long parseVmStat(String out) {
        Matcher ps = PAGE_SIZE.matcher(out);
        if (!ps.find()) {
            return 0;
        }
        long pages = 0;
        Matcher m = VM_PAGES.matcher(out);
        while (m.find()) {
            pages += parse(m.group(2));
        }
        return pages * parse(ps.group(1));
    }

    /**
     * {@code pmset -g therm}: any limit below 100 % means throttled; output without limits ("No CPU power status has
     * been recorded") means the OS saw nothing to report, i.e. nominal.
     */
    static Thermal parsePmsetTherm(String out) {
        Matcher speed = SPEED_LIMIT.matcher(out);
        Matcher sched = SCHED_LIMIT.matcher(out);
        int speedPct = speed.find() ? clampPct(speed.group(1)) : 0;
        int schedPct = sched.find() ? clampPct(sched.group(1)) : 0;
        if (speedPct == 0 && schedPct == 0 && !out.contains("No CPU power status has been recorded")) {
            return Thermal.UNKNOWN;
        }
        boolean throttled = (speedPct > 0 && speedPct < 100) || (schedPct > 0 && schedPct < 100);
        return new Thermal(throttled ? Thermal.State.THROTTLED : Thermal.State.NOMINAL, speedPct, schedPct);
    }

    /** Runs a command for at most 3 s and returns its standard output when it exits with 0. */
    static Optional<String> run(List<String> cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(3, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return Optional.empty();
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            // sysctl exits non-zero when one of many keys is unknown (e.g. perflevel keys on Intel), yet prints the rest.
            return p.exitValue() == 0 || cmd.get(0).equals("sysctl") ? Optional.of(out) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    private static List<String> features(Map<String, String> s) {
        List<String> out = new ArrayList<>();
        ARM_FEATURES.forEach((key, name) -> {
            if ("1".equals(s.get(key))) {
                out.add(name);
            }
        });
        // Intel Macs: "SSE4.2 AVX1.0 FMA ..." and "AVX2 AVX512F ..."; map to Linux's spelling.
        String x86 = s.getOrDefault("machdep.cpu.features", "") + " " + s.getOrDefault("machdep.cpu.leaf7_features", "");
        for (String f : x86.trim().split("\\s+")) {
            String lower = f.toLowerCase(Locale.ROOT).replace('.', '_');
            out.add(lower.equals("avx1_0") ? "avx" : lower);
        }
        return out;
    }

    private static void addCache(HwSnapshot.Builder b, int level, Cache.Type type, Map<String, String> s, String key,
            int line, int sharedBy) {
        long size = longNum(s, key);
        if (size > 0) {
            b.caches.add(new Cache(level, type, size, Math.max(0, line), Math.max(0, sharedBy), 0));
        }
    }

    private static int clampPct(String v) {
        return (int) Math.min(100, parse(v));
    }

    /** A run of digits as a number; 0 when it does not fit (the value is then as good as unknown). */
    private static long parse(String digits) {
        return digits.length() > 15 ? 0 : Long.parseLong(digits);
    }

    private static int num(Map<String, String> s, String key) {
        long v = longNum(s, key);
        return v > Integer.MAX_VALUE ? 0 : (int) v;
    }

    private static long longNum(Map<String, String> s, String key) {
        try {
            return Math.max(0, Long.parseLong(s.getOrDefault(key, "").trim()));
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
