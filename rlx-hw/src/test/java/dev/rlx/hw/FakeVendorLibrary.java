package dev.rlx.hw;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * A fake vendor library from {@code src/test/c}, compiled with gcc into {@code target/fake-gpu/} once per test JVM,
 * and handles on its test controls (see {@code fake_control.h}). Without gcc the tests using it are skipped.
 */
final class FakeVendorLibrary {
    static final FakeVendorLibrary NVML = new FakeVendorLibrary("fake_nvml.c", "libnvidia-ml.so", "fake_nvml_");
    static final FakeVendorLibrary ROCM_SMI = new FakeVendorLibrary("fake_rocm_smi.c", "librocm_smi64.so", "fake_rsmi_");

    private final String source;
    private final String fileName;
    private final String prefix;
    private Path path; // guarded by this
    private SymbolLookup lookup; // guarded by this

    private FakeVendorLibrary(String source, String fileName, String prefix) {
        this.source = source;
        this.fileName = fileName;
        this.prefix = prefix;
    }

    /** The compiled library's absolute path; compiles it on first use, skips the test when there is no gcc. */
    synchronized Path path() {
        if (path == null) {
            Path out = Path.of("target", "fake-gpu", fileName).toAbsolutePath();
            List<String> cmd = List.of("gcc", "-shared", "-fPIC", "-O1", "-Wall", "-Werror", "-o", out.toString(),
                    Path.of("src", "test", "c", source).toAbsolutePath().toString());
            try {
                Files.createDirectories(out.getParent());
                Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
                String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                Assertions.assertTrue(p.waitFor(60, TimeUnit.SECONDS), "gcc timed out");
                Assertions.assertEquals(0, p.exitValue(), String.join(" ", cmd) + " failed:\n" + log);
            } catch (IOException e) {
                Assumptions.abort("gcc is not available (" + e.getMessage() + "); the fake " + fileName
                        + " tests need a C compiler");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
            path = out;
            lookup = SymbolLookup.libraryLookup(out, Arena.global());
        }
        return path;
    }

    /** Canned devices back, forced statuses and call counts cleared, root off. */
    void reset() {
        invoke("reset", FunctionDescriptor.ofVoid());
    }

    /** Whether the fake's setters behave as for root. */
    void root(boolean on) {
        invoke("set_root", FunctionDescriptor.ofVoid(JAVA_INT), on ? 1 : 0);
    }

    /** Makes the named entry point return {@code status} until the next {@link #reset()}. */
    void force(String function, int status) {
        try (Arena a = Arena.ofConfined()) {
            invoke("force", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT), a.allocateFrom(function), status);
        }
    }

    /** Calls of the named entry point since the last {@link #reset()}. */
    int calls(String function) {
        try (Arena a = Arena.ofConfined()) {
            return (int) invoke("calls", FunctionDescriptor.of(JAVA_INT, ADDRESS), a.allocateFrom(function));
        }
    }

    /** A test query returning a C {@code int} / {@code unsigned}, e.g. {@code intCall("fan_percent", 0, 1)}. */
    int intCall(String name, int... args) {
        return (int) invoke(name, descriptor(JAVA_INT, args.length), Arrays.stream(args).boxed().toArray());
    }

    /** A test query returning a 64-bit integer. */
    long longCall(String name, int... args) {
        return (long) invoke(name, descriptor(JAVA_LONG, args.length), Arrays.stream(args).boxed().toArray());
    }

    private static FunctionDescriptor descriptor(ValueLayout ret, int ints) {
        MemoryLayout[] in = new MemoryLayout[ints];
        Arrays.fill(in, JAVA_INT);
        return FunctionDescriptor.of(ret, in);
    }

    private Object invoke(String name, FunctionDescriptor fd, Object... args) {
        path();
        String symbol = prefix + name;
        MethodHandle h = Linker.nativeLinker().downcallHandle(lookup.find(symbol)
                .orElseThrow(() -> new AssertionError("the fake has no " + symbol)), fd);
        try {
            return h.invokeWithArguments(args);
        } catch (Throwable t) {
            throw new AssertionError(symbol, t);
        }
    }
}
