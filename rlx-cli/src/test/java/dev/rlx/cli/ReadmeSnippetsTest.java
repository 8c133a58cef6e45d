package dev.rlx.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code ```java} block of the README compiles against RLX as it is, so the README cannot drift from the
 * API; the quickstart, a complete program, also runs and prints what the README says.
 *
 * <p>A block with {@code void main()} is a compact source file and is compiled as written. Any other block is a
 * method body: its {@code import} lines stay imports, every RLX package (and {@code java.util},
 * {@code java.nio.file}, {@code java.lang.foreign}) is imported on demand, and a first line
 * {@code // given: Graph g, float[] xs} names the variables it takes from the text around it.
 */
class ReadmeSnippetsTest {
    private static final Path README = Path.of(System.getProperty("rlx.source.root", "..")).resolve("README.md");
    private static final Pattern GIVEN = Pattern.compile("^\\s*//\\s*given:\\s*(.+)$");

    /** One block: where it starts in the README (the line after the fence) and its lines. */
    record Snippet(int line, List<String> lines) {
        boolean isProgram() {
            return lines.stream().anyMatch(l -> l.matches("\\s*void main\\(\\).*"));
        }

        String className() {
            return (isProgram() ? "ReadmeProgram" : "ReadmeSnippet") + line;
        }
    }

    /** A source file made from a snippet: README line {@code line} is the file's line {@code offset + 1}. */
    record Source(Snippet snippet, Path file, int offset) {}

    static List<Snippet> snippets() throws IOException {
        List<String> readme = Files.readAllLines(README);
        List<Snippet> out = new ArrayList<>();
        for (int i = 0; i < readme.size(); i++) {
            if (readme.get(i).strip().equals("```java")) {
                int start = i + 1;
                int end = start;
                while (!readme.get(end).strip().equals("```")) {
                    end++;
                }
                out.add(new Snippet(start + 1, readme.subList(start, end)));
                i = end;
            }
        }
        return out;
    }

    @Test
    void everyJavaBlockCompiles_andTheQuickstartRuns(@TempDir Path dir) throws Exception {
        List<Snippet> snippets = snippets();
        assertTrue(snippets.size() >= 10, "the README's Java blocks: " + snippets.size());
        String imports = onDemandImports();
        List<Source> sources = new ArrayList<>();
        for (Snippet s : snippets) {
            sources.add(s.isProgram() ? program(s, dir) : body(s, dir, imports));
        }
        compile(sources, dir.resolve("classes"));

        Snippet quickstart = snippets.get(0);
        assertTrue(quickstart.isProgram(), "the first block, the quickstart, is a whole program");
        assertTrue(quickstart.lines().stream().anyMatch(l -> l.startsWith("import dev.rlx.")), "and shows its imports");
        String printed = runMain(dir.resolve("classes"), quickstart.className());
        assertEquals("[4.0, 6.0]\n[4.0, 6.0]\n", printed, "what the quickstart's comments say it prints");
    }

    /** A compact source file, as written. */
    private static Source program(Snippet s, Path dir) throws IOException {
        Path file = dir.resolve(s.className() + ".java");
        Files.write(file, s.lines());
        return new Source(s, file, 0);
    }

    /** A method body in a class of its own, with its imports and its given variables as parameters. */
    private static Source body(Snippet s, Path dir, String imports) throws IOException {
        List<String> head = new ArrayList<>();
        List<String> body = new ArrayList<>();
        String params = "";
        for (String l : s.lines()) {
            Matcher given = GIVEN.matcher(l);
            if (l.startsWith("import ")) {
                head.add(l);
                body.add("");
            } else if (given.matches()) {
                params = given.group(1).strip();
                body.add("");
            } else {
                body.add(l);
            }
        }
        List<String> file = new ArrayList<>();
        file.add(imports + String.join(" ", head));
        file.add("@SuppressWarnings(\"unused\") class " + s.className() + " { void snippet(" + params + ") throws Exception {");
        file.addAll(body);
        file.add("} }");
        Path path = dir.resolve(s.className() + ".java");
        Files.write(path, file);
        return new Source(s, path, 2);
    }

    /** {@code import p.*;} for every package of RLX's main code on the class path, and the JDK's usual ones. */
    private static String onDemandImports() throws IOException {
        TreeSet<String> packages = new TreeSet<>(List.of("java.util", "java.nio.file", "java.lang.foreign"));
        for (String entry : classPath()) {
            Path p = Path.of(entry);
            if (Files.isDirectory(p) && !p.endsWith("test-classes")) {
                try (Stream<Path> files = Files.walk(p)) {
                    files.map(f -> p.relativize(f).toString()).forEach(f -> addPackage(packages, f));
                }
            } else if (Files.isRegularFile(p) && p.getFileName().toString().startsWith("rlx-")) {
                try (JarFile jar = new JarFile(p.toFile())) {
                    jar.stream().forEach(e -> addPackage(packages, e.getName()));
                }
            }
        }
        return packages.stream().map(p -> "import " + p + ".*;").collect(Collectors.joining(" ")) + " ";
    }

    private static void addPackage(TreeSet<String> packages, String classFile) {
        String f = classFile.replace(File.separatorChar, '/');
        if (f.startsWith("dev/rlx/") && !f.startsWith("dev/rlx/cli/") && f.endsWith(".class") && f.lastIndexOf('/') > 0) {
            packages.add(f.substring(0, f.lastIndexOf('/')).replace('/', '.'));
        }
    }

    private static List<String> classPath() {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        return List.of(cp.split(File.pathSeparator));
    }

    /** Compiles every source at once; fails listing each error at its README line. */
    private static void compile(List<Source> sources, Path out) throws IOException {
        Files.createDirectories(out);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
            List<String> options = List.of("--release", "25", "-proc:none", "-Xlint:none", "-classpath",
                    String.join(File.pathSeparator, classPath()), "-d", out.toString());
            Iterable<? extends JavaFileObject> units = files.getJavaFileObjectsFromPaths(sources.stream().map(Source::file).toList());
            boolean ok = javac.getTask(null, files, diagnostics, options, null, units).call();
            List<String> errors = new ArrayList<>();
            for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                if (d.getKind() == Diagnostic.Kind.ERROR) {
                    errors.add(where(sources, d) + ": " + d.getMessage(Locale.ROOT));
                }
            }
            assertTrue(ok && errors.isEmpty(), "README Java blocks that do not compile:\n" + String.join("\n", errors));
        }
    }

    private static String where(List<Source> sources, Diagnostic<? extends JavaFileObject> d) {
        for (Source s : sources) {
            if (d.getSource() != null && Path.of(d.getSource().toUri()).equals(s.file())) {
                return "README.md:" + (s.snippet().line() + d.getLineNumber() - 1 - s.offset());
            }
        }
        return String.valueOf(d.getSource());
    }

    /** Runs a compact source file's instance {@code main()}, returning what it printed. */
    private static String runMain(Path classes, String className) throws Exception {
        PrintStream stdout = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, ReadmeSnippetsTest.class.getClassLoader())) {
            Class<?> program = loader.loadClass(className);
            Constructor<?> make = program.getDeclaredConstructor();
            make.setAccessible(true);
            Method main = program.getDeclaredMethod("main");
            main.setAccessible(true);
            System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
            main.invoke(make.newInstance());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            System.setOut(stdout);
        }
        return printed.toString(StandardCharsets.UTF_8);
    }
}
