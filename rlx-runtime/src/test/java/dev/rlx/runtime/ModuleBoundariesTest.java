package dev.rlx.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The module arrows of the architecture, read from the poms and sources of the reactor: main-scope dependencies
 * only point down the table below, the compile path never opens a {@code Session} of its own, and Vector API code
 * lives in the CPU backend only.
 */
class ModuleBoundariesTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    /** Each core module's allowed main-scope RLX dependencies (the CLI and the benchmarks may use anything). */
    private static final Map<String, Set<String>> ALLOWED = Map.of(
            "rlx-ir", Set.of(),
            "rlx-opt", Set.of("rlx-ir"),
            "rlx-hw", Set.of("rlx-ir"),
            "rlx-runtime", Set.of("rlx-ir", "rlx-opt", "rlx-hw"),
            "rlx-cpu", Set.of("rlx-runtime"),
            "rlx-llm", Set.of("rlx-runtime"),
            "rlx-onnx", Set.of("rlx-runtime"),
            "rlx-testkit", Set.of("rlx-runtime"),
            "rlx-vulkan", Set.of("rlx-runtime"));

    private static final Pattern DEPENDENCY = Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL);
    private static final Pattern ARTIFACT = Pattern.compile("<artifactId>(rlx-[a-z]+)</artifactId>");

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The module's main-scope dependencies on other RLX modules. */
    private static Set<String> mainDependencies(String module) {
        String pom = read(ROOT.resolve(module).resolve("pom.xml"));
        int deps = pom.indexOf("<dependencies>");
        Set<String> out = new TreeSet<>();
        if (deps < 0) {
            return out;
        }
        // only the module's own <dependencies>, not <dependencyManagement> (module poms have none)
        Matcher m = DEPENDENCY.matcher(pom.substring(deps, pom.indexOf("</dependencies>", deps)));
        while (m.find()) {
            Matcher a = ARTIFACT.matcher(m.group(1));
            if (a.find() && !m.group(1).contains("<scope>test</scope>")) {
                out.add(a.group(1));
            }
        }
        return out;
    }

    private static List<Path> mainSources(String module) {
        Path src = ROOT.resolve(module).resolve("src/main/java");
        if (!Files.isDirectory(src)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(src)) {
            return files.filter(p -> p.toString().endsWith(".java")).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void mainDependencies_pointDownTheArchitecture() {
        List<String> wrong = new ArrayList<>();
        int checked = 0;
        for (Map.Entry<String, Set<String>> e : ALLOWED.entrySet()) {
            if (!Files.isRegularFile(ROOT.resolve(e.getKey()).resolve("pom.xml"))) {
                continue; // a module not built here yet
            }
            checked++;
            for (String dep : mainDependencies(e.getKey())) {
                if (!e.getValue().contains(dep)) {
                    wrong.add(e.getKey() + " -> " + dep);
                }
            }
        }
        assertTrue(checked >= 7, "the reactor's modules were not found under " + ROOT);
        assertEquals(List.of(), wrong, "dependencies against the architecture's arrows");
        assertEquals(Set.of("rlx-ir"), mainDependencies("rlx-opt"), "rlx-opt depends on the IR only");
    }

    @Test
    void compilePath_neverOpensASessionOfItsOwn() {
        List<String> offenders = new ArrayList<>();
        for (String module : List.of("rlx-ir", "rlx-opt", "rlx-runtime", "rlx-cpu")) {
            for (Path p : mainSources(module)) {
                // dev.rlx.runtime.devices chooses devices for user graphs: a client of sessions, above the compile path.
                boolean clientLayer = p.toString().replace('\\', '/').contains("/dev/rlx/runtime/devices/");
                if (!p.getFileName().toString().equals("Session.java") && !clientLayer && read(p).contains("new Session(")) {
                    offenders.add(ROOT.relativize(p).toString());
                }
            }
        }
        assertEquals(List.of(), offenders, "constant folding and the backends must not compile through a Session");
    }

    @Test
    void vectorApi_onlyInTheCpuBackend() {
        // rlx-hw reads the preferred vector width to report it; it runs no vector code.
        Set<String> exempt = Set.of("SimdFeatures.java");
        List<String> offenders = new ArrayList<>();
        for (String module : ALLOWED.keySet()) {
            if (module.equals("rlx-cpu")) {
                continue;
            }
            for (Path p : mainSources(module)) {
                if (read(p).contains("jdk.incubator.vector") && !exempt.contains(p.getFileName().toString())) {
                    offenders.add(ROOT.relativize(p).toString());
                }
            }
        }
        assertEquals(List.of(), offenders, "Vector API code outside the backend modules");
    }
}
