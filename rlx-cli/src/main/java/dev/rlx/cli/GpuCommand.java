package dev.rlx.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.rlx.hw.GpuTelemetry;
import dev.rlx.hw.GpuThermal;
import dev.rlx.runtime.Device;
import java.io.IOException;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code rlx gpu}: a table (or JSON) of every CUDA and ROCm GPU's sensors, once or refreshed. */
@Command(name = "gpu", mixinStandardHelpOptions = true,
        description = {"Print every GPU's temperature, power, clocks, fan and utilisation (NVML for NVIDIA, ROCm SMI for AMD).",
                "The libraries can be named with RLX_NVML_LIBRARY and RLX_ROCM_SMI_LIBRARY."})
final class GpuCommand implements Callable<Integer> {
    @Option(names = "--json", description = "Print JSON; with --watch, one JSON object per line.")
    boolean json;

    @Option(names = "--watch", arity = "0..1", fallbackValue = "2", paramLabel = "SECONDS",
            description = "Refresh every SECONDS (default ${FALLBACK-VALUE}) until interrupted.")
    Double watchSeconds;

    @Option(names = "--count", paramLabel = "N", defaultValue = "0",
            description = "With --watch, stop after N refreshes (0: never).")
    int count;

    @Spec
    CommandSpec spec;

    private final GpuTelemetry telemetry;

    GpuCommand() {
        this(GpuTelemetry.system());
    }

    GpuCommand(GpuTelemetry telemetry) {
        this.telemetry = telemetry;
    }

    @Override
    public Integer call() {
        if (watchSeconds != null && !(watchSeconds > 0 && watchSeconds <= 86_400)) {
            throw new ParameterException(spec.commandLine(), "--watch must be over 0 and at most 86400 but is " + watchSeconds);
        }
        OptionChecks.atLeast(spec, "--count", count, 0);
        PrintWriter out = spec.commandLine().getOut();
        if (watchSeconds == null) {
            print(out, telemetry.allGpuThermal(), null);
            return 0;
        }
        // A terminal gets the screen redrawn in place; a pipe or file gets one block per refresh.
        boolean terminal = System.console() != null && System.console().isTerminal() && !json;
        for (int n = 0; count == 0 || n < count; n++) {
            if (n > 0) {
                try {
                    Thread.sleep(Math.round(watchSeconds * 1000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            if (terminal) {
                out.print("\033[H\033[2J");
            }
            print(out, telemetry.allGpuThermal(), Instant.now().truncatedTo(ChronoUnit.SECONDS));
        }
        return 0;
    }

    /** One refresh; {@code time} is null when not watching. */
    private void print(PrintWriter out, List<GpuThermal> gpus, Instant time) {
        if (json) {
            JsonOut.write(out, time == null, g -> writeJson(g, gpus, telemetry.sources(), time));
            return;
        }
        if (time != null) {
            out.printf(Locale.ROOT, "rlx gpu, every %s s: %s%n",
                    new BigDecimal(watchSeconds.toString()).stripTrailingZeros().toPlainString(), time);
        }
        if (gpus.isEmpty()) {
            out.println("no GPUs found (" + telemetry.sources().entrySet().stream()
                    .map(e -> e.getKey() + ": " + e.getValue()).collect(Collectors.joining("; ")) + ")");
        } else {
            TextTable t = new TextTable("GPU", "NAME", "TEMP", "HOTSPOT", "POWER", "CAP", "SM CLOCK", "MEM CLOCK", "FAN", "UTIL");
            for (GpuThermal g : gpus) {
                t.row(Device.of(g.vendor()).label() + ":" + g.index(), g.name() == null ? "-" : g.name(), unit(g.tempC(), 0, "C"),
                        unit(g.hotspotC(), 0, "C"), unit(g.powerW(), 1, "W"), unit(g.powerCapW(), 0, "W"),
                        unit(g.smClockMhz(), 0, "MHz"), unit(g.memClockMhz(), 0, "MHz"), unit(g.fanPercent(), 0, "%"),
                        unit(g.utilPercent(), 0, "%"));
            }
            t.print(out);
        }
        out.flush();
    }

    private static void writeJson(JsonGenerator g, List<GpuThermal> gpus, Map<String, String> sources, Instant time)
            throws IOException {
        g.writeStartObject();
        if (time != null) {
            g.writeStringField("time", time.toString());
        }
        g.writeArrayFieldStart("gpus");
        for (GpuThermal t : gpus) {
            g.writeStartObject();
            g.writeStringField("device", Device.of(t.vendor()).label());
            g.writeNumberField("index", t.index());
            g.writeStringField("name", t.name());
            JsonOut.number(g, "temp_c", t.tempC());
            JsonOut.number(g, "hotspot_c", t.hotspotC());
            JsonOut.number(g, "mem_temp_c", t.memTempC());
            JsonOut.number(g, "power_w", t.powerW());
            JsonOut.number(g, "power_cap_w", t.powerCapW());
            JsonOut.number(g, "power_headroom", t.powerHeadroom().isPresent() ? t.powerHeadroom().getAsDouble() : null);
            JsonOut.number(g, "sm_clock_mhz", t.smClockMhz());
            JsonOut.number(g, "mem_clock_mhz", t.memClockMhz());
            JsonOut.number(g, "fan_percent", t.fanPercent());
            JsonOut.number(g, "util_percent", t.utilPercent());
            JsonOut.number(g, "mem_util_percent", t.memUtilPercent());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeObjectFieldStart("sources");
        for (Map.Entry<String, String> e : sources.entrySet()) {
            g.writeStringField(e.getKey(), e.getValue());
        }
        g.writeEndObject();
        g.writeEndObject();
    }

    private static String unit(Number v, int decimals, String unit) {
        return v == null ? "-" : format(v.doubleValue(), decimals) + " " + unit;
    }

    private static String format(double v, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }
}
