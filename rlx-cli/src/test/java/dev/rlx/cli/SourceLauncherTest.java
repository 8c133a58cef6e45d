package dev.rlx.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The source tree's {@code ./rlx}, the real script, in a copy of the tree's layout where {@code mvn} is a fake
 * that records how it was called and leaves what the real build leaves (the launcher jar's manifest), so
 * nothing is built or downloaded and no Maven runs inside this build. The jars the class path names are the
 * installed application's.
 */
@Tag("launcher")
class SourceLauncherTest {
    private static final Path SOURCE_ROOT = Path.of(System.getProperty("rlx.source.root", "..")).toAbsolutePath().normalize();
    private static final String VERSION = "0.1.0-SNAPSHOT";

    @TempDir
    Path tmp;
    Path root;
    Path repo;
    Path mvnLog;

    /** {@code root}: the scripts, a pom and a main source; {@code repo}: a local repository; {@code bin/mvn}: the fake. */
    @BeforeEach
    void tree() throws IOException {
        root = Files.createDirectories(tmp.resolve("src"));
        repo = Files.createDirectories(tmp.resolve("m2"));
        Files.copy(SOURCE_ROOT.resolve("rlx"), root.resolve("rlx"), StandardCopyOption.COPY_ATTRIBUTES);
        Path bin = Files.createDirectories(root.resolve("rlx-cli/src/main/dist/bin"));
        for (String script : List.of("rlx", "find-jdk")) {
            Files.copy(SOURCE_ROOT.resolve("rlx-cli/src/main/dist/bin").resolve(script), bin.resolve(script),
                    StandardCopyOption.COPY_ATTRIBUTES);
        }
        Files.writeString(root.resolve("pom.xml"), "<project/>");
        Files.writeString(root.resolve("rlx-cli/pom.xml"), "<project/>");
        Files.createDirectories(root.resolve("rlx-cli/src/main/java"));
        Files.createDirectories(root.resolve("rlx-cli/target"));
        // the CLI's classes come from the real tree's build, as ./rlx puts rlx-cli/target/classes first
        Files.createSymbolicLink(root.resolve("rlx-cli/target/classes"), SOURCE_ROOT.resolve("rlx-cli/target/classes"));

        // the application's jar as a library, and an (empty) module jar to see RLX's modules mapped into the tree
        Path lib = repo.resolve("org/example/rlx/1/rlx.jar");
        Files.createDirectories(lib.getParent());
        Files.createSymbolicLink(lib, LauncherTest.APP.resolve("lib/rlx.jar"));
        Path module = Files.createDirectories(root.resolve("rlx-runtime/target")).resolve("rlx-runtime-" + VERSION + ".jar");
        try (OutputStream out = Files.newOutputStream(module); JarOutputStream j = new JarOutputStream(out)) {
            j.flush();
        }
        List<String> classPath = List.of("dev/rlx/rlx-runtime/" + VERSION + "/rlx-runtime-" + VERSION + ".jar",
                "org/example/rlx/1/rlx.jar", "org/example/a-library-with-a-long-name-so-the-manifest-folds/1/x.jar");
        Path folded = repo.resolve(classPath.get(2));
        Files.createDirectories(folded.getParent());
        Files.createSymbolicLink(folded, LauncherTest.APP.resolve("lib/rlx.jar"));
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        m.getMainAttributes().put(Attributes.Name.CLASS_PATH, String.join(" ", classPath)); // long: folded over lines
        m.getMainAttributes().putValue("Rlx-Local-Repository", repo.toString());
        Path jar = tmp.resolve("launcher.jar");
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out, m)) {
            j.flush();
        }

        mvnLog = tmp.resolve("mvn-calls");
        Path fakeBin = Files.createDirectories(tmp.resolve("bin"));
        Path mvn = fakeBin.resolve("mvn");
        Files.writeString(mvn, """
                #!/usr/bin/env bash
                echo "$PWD $*" >> '%s'
                [ -n "${FAKE_MVN_FAIL:-}" ] && { echo "[ERROR] Failed to execute goal: compilation failure"; exit 1; }
                echo "[INFO] Building rlx-cli %s                                  [1/1]"
                echo "[INFO] Downloaded from central: https://repo.example/picocli.jar (406 kB at 1.2 MB/s)"
                echo "[INFO] Toolchain in maven-compiler-plugin: JDK[%s]"
                cp '%s' rlx-cli/target/rlx-cli-%s-launcher.jar
                echo "[INFO] BUILD SUCCESS"
                """.formatted(mvnLog, VERSION, LauncherTest.JDK, jar, VERSION));
        Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private LauncherTest.Run dotRlx(Path dir, boolean failingBuild, String... args) {
        List<String> command = new ArrayList<>(List.of(root.resolve("rlx").toString()));
        command.addAll(List.of(args));
        return LauncherTest.run(dir, env -> {
            env.put("PATH", tmp.resolve("bin") + ":" + env.get("PATH"));
            env.remove("RLX_JAVA_HOME"); // ./rlx takes the JDK the build's toolchain used
            if (failingBuild) {
                env.put("FAKE_MVN_FAIL", "1");
            }
        }, command.toArray(String[]::new));
    }

    private List<String> mvnCalls() throws IOException {
        return Files.exists(mvnLog) ? Files.readAllLines(mvnLog) : List.of();
    }

    @Test
    void buildsOnce_thenRunsJavaDirectly_andAgainAfterASourceChanges() throws IOException {
        Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere"));
        LauncherTest.Run first = dotRlx(elsewhere, false, "--version");
        assertEquals(0, first.exit(), first.err());
        assertEquals("rlx " + dev.rlx.runtime.Rlx.VERSION + "\n", first.out());
        List<String> calls = mvnCalls();
        assertEquals(1, calls.size(), calls.toString());
        Path real = root.toRealPath();
        assertEquals(real + " -B -Dstyle.color=never -Drlx.launcher -Djar.skipIfEmpty=true -pl rlx-cli -am process-classes"
                + " org.apache.maven.plugins:maven-jar-plugin:jar", calls.get(0),
                "the main code only, up to its jars: no test phase, so no test dependency");
        assertTrue(first.err().startsWith("rlx: building the rlx command with Maven"), first.err());
        assertTrue(first.err().contains("\nrlx: building [1/1] rlx-cli\nrlx: downloaded 1 file (0.4 MB) into the local Maven"
                + " repository\n"), first.err());

        Path classPath = root.resolve("rlx-cli/target/launcher/classpath");
        List<String> entries = List.of(Files.readString(classPath).split(":"));
        assertEquals(List.of(real.resolve("rlx-cli/target/classes").toString(),
                real.resolve("rlx-runtime/target/rlx-runtime-" + VERSION + ".jar").toString(), repo + "/org/example/rlx/1/rlx.jar",
                repo + "/org/example/a-library-with-a-long-name-so-the-manifest-folds/1/x.jar"), entries);
        assertEquals(LauncherTest.JDK, Files.readString(root.resolve("rlx-cli/target/launcher/java-home")));

        LauncherTest.Run second = dotRlx(elsewhere, false, "--version");
        assertEquals(new LauncherTest.Run(0, first.out(), ""), second, "no build, no note");
        assertEquals(1, mvnCalls().size());

        Path source = Files.writeString(root.resolve("rlx-cli/src/main/java/Edited.java"), "class Edited {}");
        Files.setLastModifiedTime(source, FileTime.from(Instant.now().plusSeconds(5)));
        LauncherTest.Run third = dotRlx(elsewhere, false, "--version");
        assertEquals(0, third.exit(), third.err());
        assertEquals(2, mvnCalls().size(), "rebuilt after a source changed");
        assertTrue(third.err().startsWith("rlx: sources changed since the last build; rebuilding"), third.err());
    }

    @Test
    void aFailedBuild_saysSoWithMavensErrors_andRunsNothing() throws IOException {
        LauncherTest.Run r = dotRlx(tmp, true, "--version");
        assertEquals(1, r.exit());
        assertEquals("", r.out());
        assertTrue(r.err().contains("rlx: the build failed (mvn exit status 1):\n[ERROR] Failed to execute goal: compilation failure\n"),
                r.err());
        assertFalse(Files.exists(root.resolve("rlx-cli/target/launcher/classpath")));
        assertEquals(1, mvnCalls().size());
    }

    @Test
    void argumentsAndTheWorkingFolderPassThrough() throws IOException {
        Path here = Files.createDirectories(tmp.resolve("here"));
        LauncherTest.Run r = dotRlx(here, false, "run", "the model.onnx", "--input", "");
        assertEquals(1, r.exit());
        assertTrue(r.err().endsWith("rlx run: MODEL the model.onnx: no such file in " + here.toRealPath() + "\n"), r.err());
    }
}
