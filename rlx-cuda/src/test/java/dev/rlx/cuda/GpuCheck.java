package dev.rlx.cuda;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.rlx.cpu.CpuBackend;
import dev.rlx.cuda.bindings.Cublas;
import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.onnx.OnnxBinding;
import dev.rlx.onnx.OnnxGraph;
import dev.rlx.onnx.embed.MiniLm;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.IntConsumer;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * The GPU check, run by {@code gpu-check/run.sh} on a machine with a CUDA GPU and no Maven: the probe, the CUDA
 * test classes through the JUnit launcher (testkit against the float64 reference, ONNX conformance, MiniLM and
 * the decoder block against the CPU, NVRTC compiling every kernel variant), then the figures: SGEMM and HGEMM
 * 4096^3 through RLX against cuBLAS called directly (alternating, in this process), the per-run cost of the
 * quickstart and of a 24-step graph with and without CUDA graphs, and MiniLM 32 x 128 on CUDA and on the CPU.
 * Writes {@code probe.txt}, {@code tests.txt} and {@code figures.md} under the folder given; exits 2 when there
 * is no usable CUDA device (after saying why), 1 when a test failed. {@code dry-run} runs the test classes even
 * without a device (they skip, with their reasons): a check of the packed JDK and class path on any machine.
 */
public final class GpuCheck {
    private GpuCheck() {}

    static final List<Class<?>> TESTS = List.of(CudaProbeTest.class, KernelCompileTest.class, CudaRunTest.class,
            CudaTestkitTest.class, CudaDecoderBlockTest.class, CudaMiniLmTest.class, CudaOnnxConformanceTest.class);

    public static void main(String[] args) throws IOException {
        Path out = Path.of(args.length > 0 ? args[0] : "gpu-check-out");
        Files.createDirectories(out);
        CudaProbe probe = CudaBackend.probe();
        Files.writeString(out.resolve("probe.txt"), probe.describe() + "\n");
        System.out.println(probe.describe());
        boolean dryRun = args.length > 1 && args[1].equals("dry-run");
        if (!probe.available()) {
            System.out.println("no CUDA device: " + probe.reason());
            if (!dryRun) {
                System.exit(2);
            }
        }
        boolean testsOnly = args.length > 1 && (args[1].equals("tests") || dryRun);
        boolean figuresOnly = args.length > 1 && args[1].equals("figures");
        long failed = 0;
        if (!figuresOnly) {
            failed = runTests(out);
        }
        if (!testsOnly) {
            StringBuilder fig = new StringBuilder("# RLX CUDA figures\n\n").append(probe.describe()).append("\n\n");
            figures(fig);
            Files.writeString(out.resolve("figures.md"), fig);
            System.out.print(fig);
        }
        System.exit(failed > 0 ? 1 : 0);
    }

    private static long runTests(Path out) throws IOException {
        System.setProperty("rlx.cuda.report.dir", out.resolve("onnx-conformance-cuda").toString());
        LauncherDiscoveryRequestBuilder b = LauncherDiscoveryRequestBuilder.request();
        for (Class<?> c : TESTS) {
            b.selectors(selectClass(c));
        }
        LauncherDiscoveryRequest request = b.build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        SkipListener skips = new SkipListener();
        launcher.execute(request, summary, skips);
        TestExecutionSummary s = summary.getSummary();
        StringWriter text = new StringWriter();
        PrintWriter w = new PrintWriter(text);
        s.printTo(w);
        s.printFailuresTo(w, 30);
        w.println("skipped (" + skips.skipped.size() + "):");
        skips.skipped.stream().limit(400).forEach(x -> w.println("  " + x));
        w.printf(Locale.ROOT, "%d passed, %d failed, %d skipped%n", s.getTestsSucceededCount(),
                s.getTestsFailedCount(), s.getTestsAbortedCount() + s.getTestsSkippedCount());
        w.flush();
        Files.writeString(out.resolve("tests.txt"), text.toString());
        System.out.print(text);
        return s.getTestsFailedCount() + s.getContainersFailedCount();
    }

    /** Records aborted (assumption-skipped) tests with their reasons. */
    static final class SkipListener implements org.junit.platform.launcher.TestExecutionListener {
        final List<String> skipped = new ArrayList<>();

        @Override
        public void executionFinished(org.junit.platform.launcher.TestIdentifier id,
                                      org.junit.platform.engine.TestExecutionResult r) {
            if (r.getStatus() == org.junit.platform.engine.TestExecutionResult.Status.ABORTED) {
                skipped.add(id.getDisplayName() + ": " + r.getThrowable().map(Throwable::getMessage).orElse(""));
            }
        }
    }

    // ---------------------------------------------------------------- figures

    private static void figures(StringBuilder fig) {
        gemm(fig, DType.F32, 4096);
        gemm(fig, DType.F16, 4096);
        dispatch(fig);
        miniLm(fig);
    }

    /** Median of {@code rounds} timings (ms) of {@code reps} calls of {@code op}. */
    private static double[] alternate(int rounds, int reps, IntConsumer rlx, IntConsumer peer) {
        double[] a = new double[rounds];
        double[] b = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            long t0 = System.nanoTime();
            rlx.accept(reps);
            a[r] = (System.nanoTime() - t0) / 1e6 / reps;
            t0 = System.nanoTime();
            peer.accept(reps);
            b[r] = (System.nanoTime() - t0) / 1e6 / reps;
        }
        java.util.Arrays.sort(a);
        java.util.Arrays.sort(b);
        return new double[] {a[rounds / 2], b[rounds / 2]};
    }

    private static MemorySegment bytes(Arena arena, DType t, int n, long seed) {
        Random r = new Random(seed);
        MemorySegment s = arena.allocate((long) n * t.byteSize(), 8);
        for (int i = 0; i < n; i++) {
            float v = r.nextFloat() * 2 - 1;
            if (t == DType.F16) {
                s.setAtIndex(ValueLayout.JAVA_SHORT, i, Float.floatToFloat16(v));
            } else {
                s.setAtIndex(ValueLayout.JAVA_FLOAT, i, v);
            }
        }
        return s;
    }

    /** RLX's n^3 product (a graph of one matmul, inputs set once) against the same cuBLAS call made directly. */
    private static void gemm(StringBuilder fig, DType t, int n) {
        Graph g = new Graph("gemm");
        g.setOutputs(g.matmul(g.input("a", Shape.of(t, n, n)), g.input("b", Shape.of(t, n, n))));
        try (Arena arena = Arena.ofConfined(); Session s = new Session(Device.CUDA); CompiledGraph c = s.compile(g)) {
            MemorySegment a = bytes(arena, t, n * n, 1);
            MemorySegment b = bytes(arena, t, n * n, 2);
            c.setInput("a", a);
            c.setInput("b", b);
            CudaContext ctx = CudaContext.open();
            CudaMemory mem = new CudaMemory(ctx);
            CublasHandle h = CublasHandle.open(ctx, mem);
            long bytes = (long) n * n * t.byteSize();
            CudaBuffer da = (CudaBuffer) mem.allocate(bytes);
            CudaBuffer db = (CudaBuffer) mem.allocate(bytes);
            CudaBuffer dc = (CudaBuffer) mem.allocate(bytes);
            mem.write(a, da, 0, bytes);
            mem.write(b, db, 0, bytes);
            int type = t == DType.F16 ? Cublas.CUDA_R_16F : Cublas.CUDA_R_32F;
            Step.Gemm step = new Step.Gemm("direct", Cublas.CUBLAS_OP_N, Cublas.CUBLAS_OP_N, n, n, n, db.address, n, 0,
                    da.address, n, 0, dc.address, n, 0, 1, type, Cublas.CUBLAS_COMPUTE_32F);
            MemorySegment alpha = arena.allocate(8, 8);
            alpha.set(ValueLayout.JAVA_FLOAT, 0, 1f);
            MemorySegment beta = arena.allocate(8, 8);
            long stream = ctx.newStream();
            IntConsumer direct = reps -> {
                for (int i = 0; i < reps; i++) {
                    h.gemm(step, alpha, beta, stream);
                }
                ctx.synchronize(stream, "timing cuBLAS");
            };
            IntConsumer viaRlx = reps -> {
                for (int i = 0; i < reps; i++) {
                    c.submit();
                    c.await();
                }
            };
            viaRlx.accept(3);
            direct.accept(3);
            double[] ms = alternate(7, 10, viaRlx, direct);
            double flops = 2.0 * n * n * n;
            fig.append(String.format(Locale.ROOT, "- %s GEMM %d^3: RLX %.3f ms (%.1f TFLOP/s), cuBLAS direct %.3f ms"
                            + " (%.1f TFLOP/s), RLX/cuBLAS throughput %.3f (median of 7 alternating rounds of 10;"
                            + " RLX waits for each run, cuBLAS for each 10)%n", t.label(), n, ms[0],
                    flops / ms[0] / 1e9, ms[1], flops / ms[1] / 1e9, ms[1] / ms[0]));
            mem.free(da);
            mem.free(db);
            mem.free(dc);
            h.close(mem);
            mem.close();
        } catch (RuntimeException e) {
            fig.append("- ").append(t.label()).append(" GEMM: failed: ").append(e).append('\n');
        }
    }

    /** Per-run cost (submit + await) of the quickstart and of a chain of 24 small matmuls, graphs on and off. */
    private static void dispatch(StringBuilder fig) {
        Graph chain = new Graph("chain");
        Value x = chain.input("x", Shape.of(DType.F32, 16, 16));
        Value w = chain.param("w", Shape.of(DType.F32, 16, 16));
        Value h = x;
        for (int i = 0; i < 24; i++) {
            h = chain.matmul(h, w);
        }
        chain.setOutputs(h);
        for (String mode : List.of("1", "0")) {
            System.setProperty("RLX_CUDA_GRAPHS", mode);
            try (Session s = new Session(Device.CUDA); CompiledGraph q = s.compile(CudaRunTest.quickstart());
                 CompiledGraph ch = s.compile(chain)) {
                q.setParam("w", new float[8]);
                q.setInput("x", new float[4]);
                ch.setParam("w", new float[256]);
                ch.setInput("x", new float[256]);
                double[] us = alternate(9, 2000, reps -> runs(q, reps), reps -> runs(ch, reps));
                fig.append(String.format(Locale.ROOT, "- per run with CUDA graphs %s: quickstart %.1f us, 24-matmul"
                                + " chain %.1f us (median of 9 rounds of 2000 submit+await)%n",
                        mode.equals("1") ? "on" : "off", us[0] * 1e3, us[1] * 1e3));
            } catch (RuntimeException e) {
                fig.append("- dispatch (graphs ").append(mode).append("): failed: ").append(e).append('\n');
            } finally {
                System.clearProperty("RLX_CUDA_GRAPHS");
            }
        }
    }

    private static void runs(CompiledGraph c, int reps) {
        for (int i = 0; i < reps; i++) {
            c.submit();
            c.await();
        }
    }

    /** MiniLM on 32 sequences of 128 tokens: latency and sequences per second, CUDA and the CPU backend. */
    private static void miniLm(StringBuilder fig) {
        MiniLm which = MiniLm.FP32.available() ? MiniLm.FP32 : MiniLm.INT8;
        if (!which.available()) {
            fig.append("- MiniLM: no model jar on the class path\n");
            return;
        }
        Map<String, Tensor> in = CudaMiniLmTest.inputs(5, 32, 128);
        OnnxGraph imported = which.model().importGraph(OnnxBinding.of(in));
        for (boolean gpu : new boolean[] {true, false}) {
            try (Session s = gpu ? new Session(Device.CUDA) : new Session(new CpuBackend());
                 CompiledGraph c = imported.compile(s, s.defaults(), null)) {
                in.forEach(c::setInput);
                c.run();
                int reps = gpu ? 20 : 3;
                long t0 = System.nanoTime();
                for (int i = 0; i < reps; i++) {
                    c.run();
                }
                double ms = (System.nanoTime() - t0) / 1e6 / reps;
                fig.append(String.format(Locale.ROOT, "- MiniLM %s 32 x 128 on %s: %.2f ms per batch, %.0f sequences/s"
                        + " (mean of %d runs)%n", which, s.backendName(), ms, 32 / (ms / 1e3), reps));
            } catch (RuntimeException e) {
                fig.append("- MiniLM on ").append(gpu ? "CUDA" : "CPU").append(": failed: ").append(e).append('\n');
            }
        }
    }
}
