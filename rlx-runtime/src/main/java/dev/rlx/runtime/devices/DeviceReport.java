package dev.rlx.runtime.devices;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What every device can do for one graph ({@link DeviceSelector#report}): one {@link DeviceCandidate} per device
 * in declaration order, the recommended one marked, and why it was chosen (or why none could be).
 */
public record DeviceReport(String graph, List<DeviceCandidate> devices, DeviceChoice choice, String noChoice,
        DevicePolicy policy) {
    public DeviceReport {
        devices = List.copyOf(devices);
    }

    /** The recommended device's line, if any device can run the graph. */
    public Optional<DeviceCandidate> recommended() {
        return devices.stream().filter(DeviceCandidate::recommended).findFirst();
    }

    /** The line of {@code d}. */
    public DeviceCandidate of(dev.rlx.runtime.Device d) {
        return devices.stream().filter(c -> c.device() == d).findFirst().orElseThrow();
    }

    /** A fixed-width table: one row per device, then the choice and the policy. */
    public String table() {
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "%-8s %-5s %-5s %-8s %-12s %-4s %s%n", "device", "reg", "avail", "runs",
                "est/run", "rec", "blocker / partition / capabilities"));
        for (DeviceCandidate c : devices) {
            String runs = c.supportsGraph() ? "whole" : c.partition() != null ? "split" : "-";
            String est = Double.isNaN(c.estimatedNs()) ? "-" : formatNs(c.estimatedNs());
            String note = c.blocker() != null ? c.blocker()
                    : (c.partition() != null ? c.partition() + "; " : "") + String.join(",", c.capabilities());
            s.append(String.format(Locale.ROOT, "%-8s %-5s %-5s %-8s %-12s %-4s %s%n", c.label(), yes(c.registered()),
                    yes(c.available()), runs, est, c.recommended() ? "*" : "", note));
        }
        s.append(choice != null ? "recommended: " + choice + "\n" : "no device can run it: " + noChoice + "\n");
        s.append("policy: ").append(policy).append('\n');
        for (String n : policy.ignored()) {
            s.append("note: ").append(n).append('\n');
        }
        return s.toString();
    }

    private static String yes(boolean b) {
        return b ? "yes" : "no";
    }

    static String formatNs(double ns) {
        return ns >= 1e6 ? String.format(Locale.ROOT, "%.2f ms", ns / 1e6) : String.format(Locale.ROOT, "%.1f us", ns / 1e3);
    }

    /** The report as one JSON object (estimates in ns; null where not estimated). */
    public String json() {
        StringWriter w = new StringWriter();
        try (JsonGenerator g = new JsonFactory().createGenerator(w)) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeStringField("graph", graph);
            g.writeStringField("policy", policy.toString());
            if (choice != null) {
                g.writeStringField("recommended", choice.device().label());
                g.writeStringField("reason", choice.reason());
            } else {
                g.writeNullField("recommended");
                g.writeStringField("reason", noChoice);
            }
            g.writeArrayFieldStart("devices");
            for (DeviceCandidate c : devices) {
                g.writeStartObject();
                g.writeStringField("device", c.label());
                g.writeStringField("name", c.device().displayName());
                g.writeBooleanField("registered", c.registered());
                g.writeBooleanField("available", c.available());
                g.writeBooleanField("supportsGraph", c.supportsGraph());
                g.writeBooleanField("recommended", c.recommended());
                if (c.blocker() == null) {
                    g.writeNullField("blocker");
                } else {
                    g.writeStringField("blocker", c.blocker());
                }
                if (Double.isNaN(c.estimatedNs())) {
                    g.writeNullField("estimatedNs");
                } else {
                    g.writeNumberField("estimatedNs", c.estimatedNs());
                }
                g.writeArrayFieldStart("capabilities");
                for (String cap : c.capabilities()) {
                    g.writeString(cap);
                }
                g.writeEndArray();
                if (c.partition() == null) {
                    g.writeNullField("partition");
                } else {
                    g.writeObjectFieldStart("partition");
                    g.writeNumberField("deviceNodes", c.partition().deviceNodes());
                    g.writeNumberField("cpuNodes", c.partition().cpuNodes());
                    g.writeNumberField("segments", c.partition().segments());
                    g.writeNumberField("bytesMovedPerRun", c.partition().bytesMovedPerRun());
                    g.writeEndObject();
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("notes");
            for (String n : policy.ignored()) {
                g.writeString(n);
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new IllegalStateException("writing to a string cannot fail", e);
        }
        return w.toString();
    }
}
