package dev.rlx.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.opt.PrecisionPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompileCacheTest {
    private static final Device DEVICE = Device.WEBGPU;
    private FakeBackend fake;

    @BeforeEach
    void register() {
        fake = FakeBackend.full(DEVICE, false);
        BackendRegistry.global().register(DEVICE, () -> fake);
    }

    @AfterEach
    void unregister() {
        BackendRegistry.global().unregister(DEVICE);
    }

    /** x [1,n] -> transpose -> [n,1] (the fake backend copies input 0 to output 0). */
    private static Graph graph(int n) {
        Graph g = new Graph("t" + n);
        Value x = g.input("x", Shape.of(DType.F32, 1, n));
        g.setOutputs(g.transpose(x, 1, 0));
        return g;
    }

    // ---------------------------------------------------------------- memory

    @Test
    void compile_sameGraphTwice_hitsAndGivesIndependentInstances() {
        CompileCache cache = new CompileCache(8);
        try (Session s = new Session(DEVICE, CompileOptions.defaults(), cache)) {
            CompiledGraph a = s.compile(graph(3));
            CompiledGraph b = s.compile(graph(3)); // built again, equal fingerprint
            CompiledGraph c = s.compile(graph(3));
            assertEquals(1, cache.misses());
            assertEquals(2, cache.hits());
            assertEquals(1, cache.size());
            assertNotSame(a, b);
            a.setInput("x", new float[] {1, 2, 3});
            b.setInput("x", new float[] {4, 5, 6});
            a.run();
            b.run();
            assertArrayEquals(new float[] {1, 2, 3}, a.output(0).toFloatArray(), "instances do not share arenas");
            assertArrayEquals(new float[] {4, 5, 6}, b.output(0).toFloatArray());
            a.close();
            b.close();
            c.close();
        }
    }

    @Test
    void compile_anyKeyChange_misses() {
        CompileCache cache = new CompileCache(8);
        try (Session s = new Session(DEVICE, CompileOptions.defaults(), cache)) {
            s.compile(graph(3)).close();
            s.compile(graph(4)).close();                                                        // other graph
            s.compile(graph(3), CompileOptions.defaults().withPrecision(PrecisionPolicy.F16)).close(); // policy
            s.compile(graph(3), CompileOptions.defaults().withAlignment(128)).close();           // option
            s.compile(graph(3), CompileOptions.defaults().withOptimize(false)).close();
            assertEquals(5, cache.misses());
            assertEquals(0, cache.hits());
            s.compile(graph(3), CompileOptions.defaults().withPrecision(PrecisionPolicy.F16)).close();
            assertEquals(1, cache.hits());
        }
    }

    @Test
    void compile_evictsTheLeastRecentlyUsed() {
        CompileCache cache = new CompileCache(2);
        try (Session s = new Session(DEVICE, CompileOptions.defaults(), cache)) {
            s.compile(graph(1)).close();
            s.compile(graph(2)).close();
            s.compile(graph(1)).close(); // 1 is now the most recent
            s.compile(graph(3)).close(); // evicts 2
            assertEquals(2, cache.size());
            s.compile(graph(1)).close();
            assertEquals(2, cache.hits());
            s.compile(graph(2)).close();
            assertEquals(4, cache.misses(), "2 was evicted");
        }
    }

    @Test
    void compile_sixteenThreadsAtOnce_compileOnce() throws Exception {
        CompileCache cache = new CompileCache(8);
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try (Session s = new Session(DEVICE, CompileOptions.defaults(), cache)) {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<CompiledGraph>> results = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                results.add(pool.submit(() -> {
                    start.await();
                    return s.compile(graph(64));
                }));
            }
            start.countDown();
            for (Future<CompiledGraph> f : results) {
                f.get().close();
            }
            assertEquals(1, cache.misses(), "one thread compiles");
            assertEquals(15, cache.hits(), "the others wait for it");
            assertEquals(16, fake.compileCalls.get(), "every caller still gets its own kernels and arena");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void compile_failure_isNotCached() {
        CompileCache cache = new CompileCache(8);
        Graph bad = new Graph("bad");
        bad.input("x", Shape.of(DType.F32, 1)); // no outputs: fails verification
        try (Session s = new Session(DEVICE, CompileOptions.defaults(), cache)) {
            assertThrows(dev.rlx.ir.GraphVerificationException.class, () -> s.compile(bad));
            assertEquals(0, cache.size());
            assertThrows(dev.rlx.ir.GraphVerificationException.class, () -> s.compile(bad));
            assertEquals(0, cache.size());
            assertEquals(0, cache.misses(), "an invalid graph is rejected before the cache is consulted");
        }
    }

    // ---------------------------------------------------------------- disk

    @Test
    void disk_secondProcessReadsTheProgram(@TempDir Path dir) {
        try (Session s = new Session(DEVICE, CompileOptions.defaults(), new CompileCache(8, dir))) {
            s.compile(graph(5)).close();
        }
        List<Path> files = list(dir);
        assertEquals(1, files.size());
        CompileCache fresh = new CompileCache(8, dir); // a new process: empty memory, same directory
        try (Session s = new Session(DEVICE, CompileOptions.defaults(), fresh)) {
            CompiledGraph c = s.compile(graph(5));
            assertEquals(1, fresh.diskHits());
            c.setInput("x", new float[] {1, 2, 3, 4, 5});
            c.run();
            assertArrayEquals(new float[] {1, 2, 3, 4, 5}, c.output(0).toFloatArray());
            c.close();
        }
    }

    @Test
    void disk_corruptStaleOrForeignEntries_areRecompiledNotTrusted(@TempDir Path dir) throws Exception {
        try (Session s = new Session(DEVICE, CompileOptions.defaults(), new CompileCache(8, dir))) {
            s.compile(graph(5)).close();
        }
        Path file = list(dir).get(0);
        byte[] good = Files.readAllBytes(file);

        List<byte[]> bad = new ArrayList<>();
        byte[] flipped = good.clone();
        flipped[flipped.length - 3] ^= 1;             // payload corrupted: checksum fails
        bad.add(flipped);
        byte[] stale = good.clone();
        stale[5] ^= 1;                                  // format version
        bad.add(stale);
        bad.add(java.util.Arrays.copyOf(good, good.length / 2)); // truncated
        bad.add(new byte[0]);
        String text = new String(good, java.nio.charset.StandardCharsets.ISO_8859_1);
        bad.add(text.replace(Rlx.VERSION, "9.9.9").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1)); // other RLX

        for (byte[] b : bad) {
            Files.write(file, b);
            CompileCache fresh = new CompileCache(8, dir);
            try (Session s = new Session(DEVICE, CompileOptions.defaults(), fresh)) {
                CompiledGraph c = s.compile(graph(5));
                assertEquals(0, fresh.diskHits(), "a damaged entry is never used");
                c.setInput("x", new float[] {5, 4, 3, 2, 1});
                c.run();
                assertArrayEquals(new float[] {5, 4, 3, 2, 1}, c.output(0).toFloatArray());
                c.close();
            }
            assertArrayEquals(good, Files.readAllBytes(file), "the entry is rewritten");
        }

        // an entry copied under another graph's key is rejected by the key check
        Path other;
        try (Session s = new Session(DEVICE, CompileOptions.defaults(), new CompileCache(8, dir))) {
            s.compile(graph(6)).close();
        }
        other = list(dir).stream().filter(p -> !p.equals(file)).findFirst().orElseThrow();
        Files.copy(file, other, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        CompileCache fresh = new CompileCache(8, dir);
        try (Session s = new Session(DEVICE, CompileOptions.defaults(), fresh)) {
            s.compile(graph(6)).close();
            assertEquals(0, fresh.diskHits());
        }
    }

    private static List<Path> list(Path dir) {
        try (var s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".rlxc")).sorted().toList();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
