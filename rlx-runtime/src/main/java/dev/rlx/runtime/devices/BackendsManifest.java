package dev.rlx.runtime.devices;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.rlx.runtime.BackendRegistry;
import dev.rlx.runtime.Device;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Which backends this build holds. Each backend module writes {@value #RESOURCE} at build time (Maven resource
 * filtering: its artifact, version and devices), so {@link #current()} lists the backend jars on the class path
 * (several files, or one with the objects concatenated in a shaded jar); {@link #runtime()} is the
 * {@code ServiceLoader} view of the same class path: which devices have a provider and which of them probe as usable.
 */
public record BackendsManifest(List<Module> modules, List<String> problems) {
    public static final String RESOURCE = "META-INF/rlx/backends.json";
    private static final JsonFactory JSON = new JsonFactory();
    private static final int MAX_BYTES = 1 << 20;

    /** One backend module's entry. */
    public record Module(String module, String version, List<String> backends) {
        public Module {
            backends = List.copyOf(backends);
        }
    }

    /** What the run-time registry says of one device. */
    public record RuntimeBackend(Device device, boolean registered, boolean available) {}

    public BackendsManifest {
        modules = List.copyOf(modules);
        problems = List.copyOf(problems);
    }

    /** The manifests on the class path of this class's loader. */
    public static BackendsManifest current() {
        return read(BackendsManifest.class.getClassLoader());
    }

    static BackendsManifest read(ClassLoader loader) {
        List<Module> modules = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        try {
            Enumeration<URL> urls = loader.getResources(RESOURCE);
            while (urls.hasMoreElements()) {
                URL u = urls.nextElement();
                try (InputStream in = u.openStream()) {
                    modules.addAll(parse(new String(in.readNBytes(MAX_BYTES), StandardCharsets.UTF_8)));
                } catch (IOException | RuntimeException e) {
                    problems.add(u + ": " + e.getMessage());
                }
            }
        } catch (IOException e) {
            problems.add("listing " + RESOURCE + ": " + e.getMessage());
        }
        return new BackendsManifest(modules, problems);
    }

    /** Parses one or more concatenated {@code {"module", "version", "backends": [...]}} objects. */
    static List<Module> parse(String text) throws IOException {
        List<Module> out = new ArrayList<>();
        try (JsonParser p = JSON.createParser(text)) {
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                if (t != JsonToken.START_OBJECT) {
                    throw new IOException("expected an object, found " + t);
                }
                String module = null;
                String version = null;
                List<String> backends = new ArrayList<>();
                for (JsonToken f = p.nextToken(); f != JsonToken.END_OBJECT; f = p.nextToken()) {
                    String name = p.currentName();
                    JsonToken v = p.nextToken();
                    switch (name) {
                        case "module" -> module = p.getText();
                        case "version" -> version = p.getText();
                        case "backends" -> {
                            if (v != JsonToken.START_ARRAY) {
                                throw new IOException("'backends' is not an array");
                            }
                            for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
                                backends.add(p.getText());
                            }
                        }
                        default -> p.skipChildren();
                    }
                }
                if (module == null || version == null) {
                    throw new IOException("an entry lacks 'module' or 'version'");
                }
                out.add(new Module(module, version, backends));
            }
        }
        return out;
    }

    /** The device labels of every module, in class-path order, without repeats. */
    public List<String> backends() {
        Set<String> s = new LinkedHashSet<>();
        modules.forEach(m -> s.addAll(m.backends()));
        return List.copyOf(s);
    }

    /** The registry's view: every device with a provider (discovered or registered), and whether it is usable. */
    public static List<RuntimeBackend> runtime() {
        BackendRegistry r = BackendRegistry.global();
        List<RuntimeBackend> out = new ArrayList<>();
        for (Device d : r.registeredDevices()) {
            out.add(new RuntimeBackend(d, true, r.isAvailable(d)));
        }
        return out;
    }

    /** The manifest and the run-time view as one JSON object. */
    public String json() {
        StringWriter w = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(w)) {
            g.writeStartObject();
            g.writeArrayFieldStart("modules");
            for (Module m : modules) {
                g.writeStartObject();
                g.writeStringField("module", m.module());
                g.writeStringField("version", m.version());
                g.writeArrayFieldStart("backends");
                for (String b : m.backends()) {
                    g.writeString(b);
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("runtime");
            for (RuntimeBackend b : runtime()) {
                g.writeStartObject();
                g.writeStringField("device", b.device().label());
                g.writeBooleanField("available", b.available());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new IllegalStateException("writing to a string cannot fail", e);
        }
        return w.toString();
    }
}
