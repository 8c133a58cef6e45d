package dev.rlx.runtime.devices;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.rlx.runtime.CompileCache;
import dev.rlx.runtime.Device;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Calibration files: {@code <dir>/<device>-calib-<fingerprint>.json}, one per backend and host. A file is used
 * only when it parses, has {@link Calibration#SCHEMA_VERSION}, names this host's fingerprint and this backend, is
 * younger than {@link #MAX_AGE}, and passes the unit checks; otherwise the caller re-measures and
 * {@link #store}s a new one. Writes go to a temporary file renamed over the old one, so a reader never sees half
 * a file.
 */
public final class CalibrationStore {
    /** Calibrations older than this are measured again (drivers and firmware change). */
    public static final Duration MAX_AGE = Duration.ofDays(30);
    private static final long MAX_FILE_BYTES = 64 * 1024;
    private static final JsonFactory JSON = new JsonFactory();

    private final Path dir;

    public CalibrationStore(Path dir) {
        this.dir = dir;
    }

    /** The store under the user cache folder ({@link CompileCache#defaultDirectory()}{@code /calibration}). */
    public static CalibrationStore standard() {
        return new CalibrationStore(CompileCache.defaultDirectory().resolve("calibration"));
    }

    public Path directory() {
        return dir;
    }

    /** The file of {@code device}'s calibration on the host with {@code fingerprint}. */
    public Path file(Device device, String fingerprint) {
        return dir.resolve(device.label() + "-calib-" + fingerprint.replaceAll("[^A-Za-z0-9_-]", "_") + ".json");
    }

    /** What reading a calibration file found: a usable calibration, or why there is none. */
    public record Lookup(Optional<Calibration> calibration, String why) {}

    /** The stored calibration of {@code backend} on {@code device}, if present and trustworthy. */
    public Lookup load(Device device, String backend, String fingerprint, long nowEpochMs) {
        Path f = file(device, fingerprint);
        if (!Files.isRegularFile(f)) {
            return new Lookup(Optional.empty(), "missing");
        }
        Calibration c;
        try {
            if (Files.size(f) > MAX_FILE_BYTES) {
                return new Lookup(Optional.empty(), "corrupt (" + Files.size(f) + " bytes)");
            }
            c = parse(Files.readString(f, StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            return new Lookup(Optional.empty(), "corrupt (" + e.getMessage() + ")");
        }
        if (c.schemaVersion() != Calibration.SCHEMA_VERSION) {
            return new Lookup(Optional.empty(), "stale (schema " + c.schemaVersion() + ")");
        }
        if (c.device() != device || !c.fingerprint().equals(fingerprint) || !c.backend().equals(backend)) {
            return new Lookup(Optional.empty(), "stale (measured for " + c.device().label() + " " + c.backend() + " on "
                    + c.fingerprint() + ")");
        }
        if (nowEpochMs - c.measuredAtEpochMs() > MAX_AGE.toMillis() || c.measuredAtEpochMs() > nowEpochMs + 60_000) {
            return new Lookup(Optional.empty(), "stale (measured at " + c.measuredAtEpochMs() + ")");
        }
        try {
            return new Lookup(Optional.of(c.validated()), "stored");
        } catch (CostModelException e) {
            return new Lookup(Optional.empty(), "corrupt (" + e.getMessage() + ")");
        }
    }

    /** Writes {@code c} atomically; returns false (and leaves any old file) when the folder is not writable. */
    public boolean store(Calibration c) {
        Path f = file(c.device(), c.fingerprint());
        Path tmp = null;
        try {
            Files.createDirectories(dir);
            tmp = Files.createTempFile(dir, f.getFileName().toString(), ".tmp");
            Files.writeString(tmp, json(c.validated()), StandardCharsets.UTF_8);
            try {
                Files.move(tmp, f, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING);
            }
            return true;
        } catch (IOException e) {
            return false;
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // a temp file left behind is harmless
                }
            }
        }
    }

    static String json(Calibration c) {
        StringWriter w = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(w)) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeNumberField("schemaVersion", c.schemaVersion());
            g.writeStringField("device", c.device().label());
            g.writeStringField("backend", c.backend());
            g.writeStringField("fingerprint", c.fingerprint());
            g.writeNumberField("smallGemmGflops", c.smallGemmGflops());
            g.writeNumberField("largeGemmGflops", c.largeGemmGflops());
            g.writeNumberField("roundtripNs", c.roundtripNs());
            g.writeNumberField("dispatchNs", c.dispatchNs());
            g.writeNumberField("memoryBwGbps", c.memoryBwGbps());
            g.writeNumberField("hostReadbackGbps", c.hostReadbackGbps());
            g.writeBooleanField("unifiedMemory", c.unifiedMemory());
            g.writeNumberField("measuredAtEpochMs", c.measuredAtEpochMs());
            g.writeEndObject();
        } catch (IOException e) {
            throw new IllegalStateException("writing to a string cannot fail", e);
        }
        return w.toString();
    }

    /** Parses a calibration file; throws on anything but one flat object with every field. */
    static Calibration parse(String text) throws IOException {
        Map<String, Object> f = new HashMap<>();
        try (JsonParser p = JSON.createParser(text)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("not a JSON object");
            }
            for (JsonToken t = p.nextToken(); t != JsonToken.END_OBJECT; t = p.nextToken()) {
                if (t != JsonToken.FIELD_NAME) {
                    throw new IOException("unexpected " + t);
                }
                String name = p.currentName();
                JsonToken v = p.nextToken();
                Object value = switch (v) {
                    case VALUE_STRING -> p.getText();
                    case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> p.getDoubleValue();
                    case VALUE_TRUE -> Boolean.TRUE;
                    case VALUE_FALSE -> Boolean.FALSE;
                    default -> throw new IOException("field '" + name + "' is " + v);
                };
                f.put(name, value);
            }
            if (p.nextToken() != null) {
                throw new IOException("text after the object");
            }
        }
        return new Calibration((int) num(f, "schemaVersion"), DeviceNames.parse(str(f, "device")), str(f, "backend"),
                str(f, "fingerprint"), num(f, "smallGemmGflops"), num(f, "largeGemmGflops"), num(f, "roundtripNs"),
                num(f, "dispatchNs"), num(f, "memoryBwGbps"), num(f, "hostReadbackGbps"), bool(f, "unifiedMemory"),
                (long) num(f, "measuredAtEpochMs"));
    }

    private static double num(Map<String, Object> f, String k) throws IOException {
        if (f.get(k) instanceof Double d) {
            return d;
        }
        throw new IOException("field '" + k + "' missing or not a number");
    }

    private static String str(Map<String, Object> f, String k) throws IOException {
        if (f.get(k) instanceof String s) {
            return s;
        }
        throw new IOException("field '" + k + "' missing or not a string");
    }

    private static boolean bool(Map<String, Object> f, String k) throws IOException {
        if (f.get(k) instanceof Boolean b) {
            return b;
        }
        throw new IOException("field '" + k + "' missing or not a boolean");
    }
}
