package dev.rlx.cuda.bindings;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Finds the files of the {@link CudaLibrary}s: the file an {@code RLX_CUDA_*_LIBRARY} variable names, else the
 * first folder of {@link #folders} holding {@code lib<base>.so[.N...]} (the highest major version there), else
 * the loader's own search by {@link CudaLibrary#loaderName}. Folders: {@code LD_LIBRARY_PATH}, {@code CUDA_HOME}
 * and {@code CUDA_PATH}, {@code /usr/local/cuda*} ({@code lib64} and {@code targets/x86_64-linux/lib}), the
 * system library folders, and the {@code nvidia/<package>/lib} folders of Python's {@code nvidia-*} wheels.
 * A pure function of the variables and the file system it is given, so tests can build both.
 */
public final class LibraryLocator {
    private final Map<String, String> env;
    private final List<Path> folders;

    public LibraryLocator(Map<String, String> env, List<Path> folders) {
        this.env = Map.copyOf(env);
        this.folders = List.copyOf(folders);
    }

    /** The locator of this process: its environment and the usual folders that exist here. */
    public static LibraryLocator system() {
        return new LibraryLocator(System.getenv(), defaultFolders(System.getenv()));
    }

    /**
     * Where a library was looked for: {@code path} the file found (empty when none), {@code target} what to open
     * (the file found; the file a variable names even when missing, so the error names it; else the loader's name
     * for the library), {@code how} how it was found or where it was looked for.
     */
    public record Located(CudaLibrary library, Optional<Path> path, Path target, String how) {
        public boolean found() {
            return path.isPresent();
        }
    }

    public List<Path> folders() {
        return folders;
    }

    /**
     * Where {@code lib} is. A variable that names a missing file is reported as such ({@code how} says so) and
     * never silently replaced by another copy.
     */
    public Located locate(CudaLibrary lib) {
        String named = env.get(lib.variable());
        if (named != null && !named.isBlank()) {
            Path p = Path.of(named.trim());
            return Files.isRegularFile(p) ? new Located(lib, Optional.of(p), p, lib.variable() + "=" + p)
                    : new Located(lib, Optional.empty(), p, lib.variable() + "=" + p + " names no file");
        }
        for (Path dir : folders) {
            Optional<Path> f = inFolder(dir, lib.base());
            if (f.isPresent()) {
                return new Located(lib, f, f.get(), "found in " + dir);
            }
        }
        return new Located(lib, Optional.empty(), Path.of(lib.loaderName()), "no lib" + lib.base() + ".so* in "
                + folders + " (left to the loader); set " + lib.variable());
    }

    /** The best {@code lib<base>.so[.N...]} file in {@code dir}: the highest major version, then the shortest name. */
    static Optional<Path> inFolder(Path dir, String base) {
        if (!Files.isDirectory(dir)) {
            return Optional.empty();
        }
        Pattern p = Pattern.compile("lib" + Pattern.quote(base) + "\\.so(?:\\.(\\d+)(?:\\.\\d+)*)?");
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(f -> p.matcher(f.getFileName().toString()).matches() && Files.isRegularFile(f))
                    .min(Comparator.comparingInt((Path f) -> -major(p, f))
                            .thenComparingInt(f -> f.getFileName().toString().length())
                            .thenComparing(f -> f.getFileName().toString()));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static int major(Pattern p, Path f) {
        Matcher m = p.matcher(f.getFileName().toString());
        return m.matches() && m.group(1) != null ? Integer.parseInt(m.group(1)) : -1;
    }

    /** The folders searched here, in order, those that exist. */
    static List<Path> defaultFolders(Map<String, String> env) {
        Set<Path> out = new LinkedHashSet<>();
        String ld = env.getOrDefault("LD_LIBRARY_PATH", "");
        for (String part : ld.split(":")) {
            if (!part.isBlank()) {
                out.add(Path.of(part));
            }
        }
        for (String var : List.of("CUDA_HOME", "CUDA_PATH")) {
            String home = env.get(var);
            if (home != null && !home.isBlank()) {
                addToolkit(out, Path.of(home));
            }
        }
        addToolkit(out, Path.of("/usr/local/cuda"));
        for (Path p : versioned(Path.of("/usr/local"), "cuda-")) {
            addToolkit(out, p);
        }
        out.add(Path.of("/usr/lib/x86_64-linux-gnu"));
        out.add(Path.of("/usr/lib64"));
        out.add(Path.of("/usr/lib"));
        out.add(Path.of("/usr/lib/wsl/lib"));
        out.addAll(wheelFolders(env));
        List<Path> existing = new ArrayList<>();
        for (Path p : out) {
            if (Files.isDirectory(p)) {
                existing.add(p);
            }
        }
        return existing;
    }

    private static void addToolkit(Set<Path> out, Path home) {
        out.add(home.resolve("lib64"));
        out.add(home.resolve("targets/x86_64-linux/lib"));
    }

    /** {@code nvidia/*}/lib under each site-packages folder of a Python install or virtual environment. */
    private static List<Path> wheelFolders(Map<String, String> env) {
        List<Path> roots = new ArrayList<>();
        String venv = env.get("VIRTUAL_ENV");
        if (venv != null && !venv.isBlank()) {
            roots.add(Path.of(venv, "lib"));
        }
        String home = env.get("HOME");
        if (home != null && !home.isBlank()) {
            roots.add(Path.of(home, ".local", "lib"));
        }
        roots.add(Path.of("/usr/local/lib"));
        roots.add(Path.of("/usr/lib"));
        List<Path> out = new ArrayList<>();
        for (Path root : roots) {
            for (Path py : versioned(root, "python3")) {
                for (String site : List.of("site-packages", "dist-packages")) {
                    Path nv = py.resolve(site).resolve("nvidia");
                    if (Files.isDirectory(nv)) {
                        try (Stream<Path> s = Files.list(nv)) {
                            s.map(p -> p.resolve("lib")).filter(Files::isDirectory).sorted().forEach(out::add);
                        } catch (IOException e) {
                            // an unreadable folder is one place fewer to look
                        }
                    }
                }
            }
        }
        return out;
    }

    /** Folders of {@code parent} whose names start with {@code prefix}, newest version first. */
    private static List<Path> versioned(Path parent, String prefix) {
        if (!Files.isDirectory(parent)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(parent)) {
            return s.filter(p -> p.getFileName().toString().startsWith(prefix) && Files.isDirectory(p))
                    .sorted(Comparator.comparing((Path p) -> p.getFileName().toString()).reversed()).toList();
        } catch (IOException e) {
            return List.of();
        }
    }
}
