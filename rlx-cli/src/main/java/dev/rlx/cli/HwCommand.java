package dev.rlx.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.rlx.hw.HwSnapshot;
import dev.rlx.hw.HwSnapshot.Cache;
import dev.rlx.hw.HwSnapshot.NumaNode;
import dev.rlx.hw.HwSnapshot.Thermal;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code rlx hw}: what this machine is, as {@link HwSnapshot#capture()} reads it. */
@Command(name = "hw", mixinStandardHelpOptions = true,
        description = "Print the host: CPU, topology, caches, SIMD features, memory, NUMA nodes, thermal state.")
final class HwCommand implements Callable<Integer> {
    @Option(names = "--json", description = "Print JSON instead of text.")
    boolean json;

    @Spec
    CommandSpec spec;

    private final Supplier<HwSnapshot> snapshot;
    /** The Vulkan devices to list, or null to list none (tests of the host fields). */
    private final Supplier<List<dev.rlx.vulkan.VulkanDeviceInfo>> vulkan;

    HwCommand() {
        this(HwSnapshot::capture, dev.rlx.vulkan.VulkanBackend::devices);
    }

    HwCommand(Supplier<HwSnapshot> snapshot) {
        this(snapshot, () -> null);
    }

    HwCommand(Supplier<HwSnapshot> snapshot, Supplier<List<dev.rlx.vulkan.VulkanDeviceInfo>> vulkan) {
        this.snapshot = snapshot;
        this.vulkan = vulkan;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        HwSnapshot s = snapshot.get();
        if (json) {
            JsonOut.write(out, true, g -> writeJson(g, s));
        } else {
            printText(out, s, vulkan.get());
        }
        out.flush();
        return 0;
    }

    static void printText(PrintWriter out, HwSnapshot s, List<dev.rlx.vulkan.VulkanDeviceInfo> vulkanDevices) {
        line(out, "host", s.os() + " " + s.arch());
        line(out, "cpu", s.cpuModel());
        String topo = count(s.sockets(), "socket") + ", " + count(s.physicalCores(), "core") + ", "
                + count(s.logicalCpus(), "logical CPU") + " (the JVM uses " + s.jvmProcessors() + ")";
        line(out, "topology", s.perfCores() > 0 ? topo + ", " + count(s.perfCores(), "performance core") : topo);
        List<String> caches = new ArrayList<>();
        for (Cache c : s.caches()) {
            caches.add(String.format(Locale.ROOT, "%-3s %s%s (line %s, %s)", c.name(), bytes(c.sizeBytes()),
                    c.instances() > 0 ? " x" + c.instances() : "", c.lineBytes() > 0 ? c.lineBytes() + " B" : "unknown",
                    c.sharedByCpus() > 0 ? "shared by " + count(c.sharedByCpus(), "CPU") : "sharing unknown"));
        }
        lines(out, "caches", caches.isEmpty() ? List.of("unknown") : caches);
        line(out, "simd", s.simdFeatures().isEmpty() ? "none known" : String.join(" ", s.simdFeatures()));
        line(out, "vector api", s.vectorBitSize() > 0
                ? s.vectorBitSize() + "-bit preferred species (" + s.vectorBitSize() / 32 + " float lanes)"
                : "unavailable (run the JVM with --add-modules jdk.incubator.vector)");
        line(out, "memory", (s.memTotalBytes() > 0 ? bytes(s.memTotalBytes()) : "unknown") + " total, "
                + (s.memAvailableBytes() > 0 ? bytes(s.memAvailableBytes()) : "unknown") + " available");
        List<String> numa = new ArrayList<>();
        for (NumaNode n : s.numaNodes()) {
            numa.add("node " + n.id() + ": CPUs " + (n.cpus().isEmpty() ? "none" : n.cpuList())
                    + (n.memTotalBytes() > 0 ? ", " + bytes(n.memTotalBytes()) : ""));
        }
        lines(out, "numa", numa.isEmpty() ? List.of("not reported") : numa);
        line(out, "thermal", thermal(s.thermal()));
        if (vulkanDevices != null) {
            printVulkan(out, vulkanDevices);
        }
        line(out, "fingerprint", s.fingerprint());
    }

    private static String thermal(Thermal t) {
        return switch (t.state()) {
            case UNKNOWN -> "unknown (the OS reports no throttle state)";
            case NOMINAL -> "nominal";
            case THROTTLED -> "throttled (CPU speed limit " + t.cpuSpeedLimitPct() + " %, scheduler limit "
                    + t.schedulerLimitPct() + " %)";
        };
    }

    static void writeJson(JsonGenerator g, HwSnapshot s) throws IOException {
        g.writeStartObject();
        g.writeStringField("os", s.os());
        g.writeStringField("arch", s.arch());
        g.writeStringField("cpu_model", s.cpuModel());
        JsonOut.known(g, "sockets", s.sockets());
        JsonOut.known(g, "physical_cores", s.physicalCores());
        JsonOut.known(g, "logical_cpus", s.logicalCpus());
        g.writeNumberField("perf_cores", s.perfCores());
        g.writeNumberField("jvm_processors", s.jvmProcessors());
        g.writeArrayFieldStart("caches");
        for (Cache c : s.caches()) {
            g.writeStartObject();
            g.writeStringField("name", c.name());
            g.writeNumberField("level", c.level());
            g.writeStringField("type", c.type().name().toLowerCase(Locale.ROOT));
            g.writeNumberField("size_bytes", c.sizeBytes());
            JsonOut.known(g, "line_bytes", c.lineBytes());
            JsonOut.known(g, "shared_by_cpus", c.sharedByCpus());
            JsonOut.known(g, "instances", c.instances());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("simd_features");
        for (String f : s.simdFeatures()) {
            g.writeString(f);
        }
        g.writeEndArray();
        JsonOut.known(g, "vector_bit_size", s.vectorBitSize());
        JsonOut.known(g, "mem_total_bytes", s.memTotalBytes());
        JsonOut.known(g, "mem_available_bytes", s.memAvailableBytes());
        g.writeArrayFieldStart("numa_nodes");
        for (NumaNode n : s.numaNodes()) {
            g.writeStartObject();
            g.writeNumberField("id", n.id());
            g.writeArrayFieldStart("cpus");
            for (int c : n.cpus()) {
                g.writeNumber(c);
            }
            g.writeEndArray();
            JsonOut.known(g, "mem_total_bytes", n.memTotalBytes());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeObjectFieldStart("thermal");
        g.writeStringField("state", s.thermal().state().name().toLowerCase(Locale.ROOT));
        JsonOut.known(g, "cpu_speed_limit_pct", s.thermal().cpuSpeedLimitPct());
        JsonOut.known(g, "scheduler_limit_pct", s.thermal().schedulerLimitPct());
        g.writeEndObject();
        g.writeStringField("fingerprint", s.fingerprint());
        g.writeEndObject();
    }

    /** The Vulkan devices the loader sees (name, type, driver, heaps, subgroup size, shared memory, limits). */
    static void printVulkan(PrintWriter out, List<dev.rlx.vulkan.VulkanDeviceInfo> devices) {
        lines(out, "vulkan", devices.isEmpty() ? List.of("no devices (no loader or driver)")
                : devices.stream().map(dev.rlx.vulkan.VulkanDeviceInfo::describe).toList());
    }

    private static void line(PrintWriter out, String label, String value) {
        out.printf(Locale.ROOT, "%-12s %s%n", label, value);
    }

    private static void lines(PrintWriter out, String label, List<String> values) {
        for (int i = 0; i < values.size(); i++) {
            line(out, i == 0 ? label : "", values.get(i));
        }
    }

    private static String count(int n, String noun) {
        return n > 0 ? n + " " + noun + (n == 1 ? "" : "s") : "unknown " + noun + "s";
    }

    /** Binary units, as the kernel and vendors quote cache and memory sizes. */
    static String bytes(long b) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        double v = b;
        int u = 0;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f %s", v, units[u])
                : String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }
}
