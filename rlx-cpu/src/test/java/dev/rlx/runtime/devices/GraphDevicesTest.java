package dev.rlx.runtime.devices;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.OpKind;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The seed's multi-device tests, on the CPU and a fake second device ({@link PartialBackend} registered as
 * {@link Device#GPU}: the CPU's kernels, claiming only matmul and binary ops, with a cost model calibrated as fast).
 * CUDA has no backend in this build.
 */
class GraphDevicesTest {
    static final Device FAKE = Device.GPU;
    static final EnumSet<OpKind> FAKE_KINDS = EnumSet.of(OpKind.INPUT, OpKind.PARAM, OpKind.CONSTANT, OpKind.MATMUL,
            OpKind.BINARY);
    /** The fake device's calibration: a fast GEMM, a slow round trip and a PCIe-like host link. */
    static final HeuristicCostModel FAST = new HeuristicCostModel(FAKE, 5_000, 50_000, 10_000, 50_000, 1_000, 10, false);
    static final Map<String, String> NO_ENV = Map.of();

    private AutoCloseable fake;

    @BeforeEach
    void installFake() {
        fake = PartialBackend.install(FAKE, FAKE_KINDS);
    }

    @AfterEach
    void removeFake() throws Exception {
        fake.close();
    }

    static CostModels costs(HeuristicCostModel fakeModel) {
        return CostModels.fixed(Map.of(Device.CPU, HeuristicCostModel.of(Device.CPU), FAKE, fakeModel), CostModels.heuristic());
    }

    static DeviceSelector selector(DevicePolicy p, Map<String, String> env, boolean partitioning) {
        return new DeviceSelector(p, costs(FAST), env::get, CompileOptions.defaults(), partitioning);
    }

    static GraphDevices devices(Graph g, DevicePolicy p, Map<String, String> env) {
        return new GraphDevices(g, selector(p, env, true), true);
    }

    /** y = x + w, both [2]. */
    static Graph addGraph() {
        Graph g = new Graph("add");
        Value x = g.input("x", Shape.of(DType.F32, 2));
        Value w = g.param("w", Shape.of(DType.F32, 2));
        g.setOutputs(g.add(x, w));
        return g;
    }

    static Graph matmul(int m, int k, int n) {
        Graph g = new Graph("mm");
        Value a = g.input("a", Shape.of(DType.F32, m, k));
        Value b = g.param("b", Shape.of(DType.F32, k, n));
        g.setOutputs(g.matmul(a, b));
        return g;
    }

    /** x @ w1 -> exp -> @ w2 -> + b: the fake runs the matmuls and the add, not the exp (node 3). */
    static Graph mixed(int rows, int in, int hidden) {
        Graph g = new Graph("mixed");
        Value x = g.input("x", Shape.of(DType.F32, rows, in));
        Value w1 = g.param("w1", Shape.of(DType.F32, in, hidden));
        Value h = g.exp(g.matmul(x, w1));
        Value w2 = g.param("w2", Shape.of(DType.F32, hidden, in));
        Value b = g.param("b", Shape.of(DType.F32, in));
        g.setOutputs(g.add(g.matmul(h, w2), b));
        return g;
    }

    static float[] random(int n, long seed) {
        java.util.Random r = new java.util.Random(seed);
        float[] d = new float[n];
        for (int i = 0; i < n; i++) {
            d[i] = r.nextFloat() - 0.5f;
        }
        return d;
    }

    @Test
    void setParam_appliesToALaterCompile_andToCompiledOnes() {
        try (GraphDevices gd = devices(addGraph(), DevicePolicy.all(), NO_ENV)) {
            gd.setParam("w", new float[] {1, 2});
            assertTrue(gd.compiledDevices().isEmpty());
            assertArrayEquals(new float[] {4, 6}, gd.run(Device.CPU, Map.of("x", new float[] {3, 4})).get(0));
            gd.setParam("w", new float[] {10, 20});
            assertArrayEquals(new float[] {13, 24}, gd.run(Device.CPU, Map.of("x", new float[] {3, 4})).get(0));
            assertArrayEquals(new float[] {13, 24}, gd.run(FAKE, Map.of("x", new float[] {3, 4})).get(0));
            assertEquals(List.of(Device.CPU, FAKE), gd.compiledDevices());
            assertThrows(dev.rlx.runtime.BindingException.class, () -> gd.setParam("w", new float[] {1, 2, 3}));
            assertThrows(dev.rlx.runtime.BindingException.class, () -> gd.setParam("nope", new float[] {1, 2}));
        }
    }

    @Test
    void runTry_cudaThenCpu_fallsBackToTheCpu_recordingTheCudaAttempt() {
        try (GraphDevices gd = devices(addGraph(), DevicePolicy.all(), NO_ENV)) {
            gd.setParam("w", new float[] {1, 2});
            DeviceRun<float[]> r = gd.runTry(List.of(Device.CUDA, Device.CPU), Map.of("x", new float[] {3, 4}));
            assertEquals(Device.CPU, r.device());
            assertArrayEquals(new float[] {4, 6}, r.outputs().get(0));
            assertEquals(1, r.failed().size());
            assertEquals(Device.CUDA, r.failed().get(0).device());
            assertTrue(r.failed().get(0).error().contains("not viable") && r.failed().get(0).error().contains("not available"),
                    r.failed().get(0).error());
        }
    }

    @Test
    void runTry_everyDeviceFailing_listsEveryAttempt() throws Exception {
        try (AutoCloseable broken = PartialBackend.installBroken(Device.TPU, "driver lost");
             GraphDevices gd = devices(addGraph(), DevicePolicy.all(), NO_ENV)) {
            gd.setParam("w", new float[] {1, 2});
            DeviceFallbackException e = assertThrows(DeviceFallbackException.class,
                    () -> gd.runTry(List.of(Device.CUDA, Device.TPU), Map.of("x", new float[] {3, 4})));
            assertEquals(List.of(Device.CUDA, Device.TPU), e.attempts().stream().map(DeviceFallbackException.Attempt::device).toList());
            assertTrue(e.attempts().get(1).error().contains("driver lost"), e.getMessage());
            assertTrue(e.getMessage().startsWith("all backends failed for graph @add:\n  cuda: "), e.getMessage());
            DeviceFallbackException empty = assertThrows(DeviceFallbackException.class,
                    () -> gd.runTry(List.of(), Map.of("x", new float[] {3, 4})));
            assertEquals(List.of(new DeviceFallbackException.Attempt(Device.CPU, "empty fallback chain")), empty.attempts());
        }
    }

    @Test
    void only_cpu_restricts() {
        try (FlexibleSession fs = FlexibleSession.withDevicePolicy(DevicePolicy.only(Device.CPU));
             CompiledGraph c = fs.compileResolved(matmul(512, 512, 512), null)) {
            assertEquals(Device.CPU, c.device());
            assertThrows(DeviceSelectionException.class, () -> fs.compileOn(addGraph(), FAKE));
        }
        try (GraphDevices gd = devices(matmul(512, 512, 512), DevicePolicy.only(Device.CPU), NO_ENV)) {
            assertEquals(List.of(Device.CPU), gd.devices());
            assertEquals(Device.CPU, gd.fastest().device());
            assertThrows(DeviceSelectionException.class, () -> gd.compile(FAKE));
        }
    }

    @Test
    void hintWinsOverEnvironment_environmentOverCostModel() {
        Graph big = matmul(1024, 1024, 1024);
        try (DeviceSelector none = selector(DevicePolicy.all(), NO_ENV, true);
             DeviceSelector env = selector(DevicePolicy.all(), Map.of("RLX_DEVICE", "cpu"), true);
             DeviceSelector forced = selector(DevicePolicy.all(), Map.of("RLX_FORCE_DEVICE", "cpu"), true)) {
            DeviceChoice byCost = none.resolve(big, null);
            assertEquals(FAKE, byCost.device());
            assertTrue(byCost.reason().startsWith("cost model:"), byCost.reason());
            assertEquals(new DeviceChoice(Device.CPU, "RLX_DEVICE=cpu"), env.resolve(big, null));
            assertEquals(new DeviceChoice(FAKE, "requested"), env.resolve(big, FAKE));
            assertEquals(new DeviceChoice(Device.CPU, "RLX_FORCE_DEVICE=cpu"), forced.resolve(big, null));
            DeviceSelectionException e = assertThrows(DeviceSelectionException.class, () -> none.resolve(big, Device.CUDA));
            assertTrue(e.getMessage().contains("not available") && e.getMessage().contains("[gpu, cpu]"), e.getMessage());
            assertEquals(Device.CPU, none.resolveChain(big, List.of(Device.CUDA, Device.CPU, FAKE)).device());
        }
    }

    @Test
    void costModel_picksTheCpuForATinyGraph_andTheFastDeviceForALargeMatmul() {
        try (DeviceSelector s = selector(DevicePolicy.all(), NO_ENV, true)) {
            assertEquals(Device.CPU, s.fastest(addGraph()).device());
            assertEquals(FAKE, s.fastest(matmul(1024, 1024, 1024)).device());
            assertTrue(s.estimateNs(addGraph(), Device.CPU) < s.estimateNs(addGraph(), FAKE));
        }
    }

    @Test
    void report_marksTheRecommendedDevice_withBlockersAndCapabilities() {
        try (DeviceSelector s = selector(DevicePolicy.all(), NO_ENV, false)) {
            DeviceReport r = s.report(matmul(1024, 1024, 1024));
            assertEquals(FAKE, r.recommended().orElseThrow().device());
            assertEquals(1, r.devices().stream().filter(DeviceCandidate::recommended).count());
            DeviceCandidate cpu = r.of(Device.CPU);
            assertTrue(cpu.available() && cpu.registered() && cpu.supportsGraph() && cpu.viable());
            assertTrue(cpu.capabilities().contains("clone") && cpu.capabilities().contains("unified_memory"), cpu.capabilities().toString());
            assertTrue(cpu.estimatedNs() > r.of(FAKE).estimatedNs());
            DeviceCandidate cuda = r.of(Device.CUDA);
            assertFalse(cuda.available());
            assertEquals("not available on this host or in this build", cuda.blocker());
            assertTrue(Double.isNaN(cuda.estimatedNs()));
            assertTrue(r.table().contains("recommended: gpu (cost model:"), r.table());
            assertTrue(r.json().contains("\"recommended\" : \"gpu\""), r.json());

            DeviceCandidate exp = s.report(mixed(4, 8, 16)).of(FAKE);
            assertFalse(exp.supportsGraph());
            assertTrue(exp.blocker().startsWith("unsupported op at node 3: unary"), exp.blocker());
        }
        try (DeviceSelector s = selector(DevicePolicy.all().withDeny(FAKE), NO_ENV, true)) {
            DeviceReport r = s.report(matmul(1024, 1024, 1024));
            assertEquals("denied by DevicePolicy", r.of(FAKE).blocker());
            assertEquals(Device.CPU, r.recommended().orElseThrow().device());
            assertNull(r.of(Device.CPU).blocker());
        }
    }

    @Test
    void partitionedRuns_equalWholeCpuRuns_andTheReportShowsThePartition() {
        Graph g = mixed(4, 8, 16);
        try (GraphDevices gd = devices(g, DevicePolicy.all(), NO_ENV)) {
            gd.setParam("w1", random(8 * 16, 1));
            gd.setParam("w2", random(16 * 8, 2));
            gd.setParam("b", random(8, 3));
            assertEquals(List.of(FAKE, Device.CPU), gd.devices());
            DeviceGraph split = gd.compile(FAKE);
            PartitionedGraph pg = assertInstanceOf(PartitionedGraph.class, split);
            assertEquals(List.of(FAKE, Device.CPU, FAKE), pg.segmentDevices());
            // x in and x@w1 out of the first device segment, exp in and the result out of the last: 128+256+256+128.
            assertEquals(new PartitionSummary(3, 1, 3, 768), split.partition());
            assertEquals(split.partition(), gd.report().of(FAKE).partition());
            for (long seed = 10; seed < 13; seed++) {
                float[] x = random(4 * 8, seed);
                float[] onCpu = gd.run(Device.CPU, Map.of("x", x)).get(0);
                float[] onSplit = gd.run(FAKE, Map.of("x", x)).get(0);
                dev.rlx.testkit.Close.assertClose(toDouble(onCpu), toDouble(onSplit), 1e-6, 1e-6, "split vs cpu");
            }
        }
    }

    /** The decoder block split wherever the fake lacks a kernel (norms, softmax, SiLU, RoPE) equals the CPU run. */
    @Test
    void partitionedDecoderBlock_equalsTheCpu() {
        var b = new dev.rlx.ir.models.LlamaBlock(1, 5, 32, 4, 2, 8, 48, 1e-5f, 10_000);
        Graph g = b.build();
        try (GraphDevices gd = devices(g, DevicePolicy.all(), NO_ENV)) {
            b.randomWeights(7).forEach(gd::setParam);
            Tensor x = b.randomInput(8);
            DeviceGraph split = gd.compile(FAKE);
            assertTrue(split.partition() != null && split.partition().segments() >= 3, String.valueOf(split.partition()));
            float[] cpu = gd.runTyped(Device.CPU, Map.of("x", x)).get(0).toFloatArray();
            float[] split2 = gd.runTyped(FAKE, Map.of("x", x)).get(0).toFloatArray();
            dev.rlx.testkit.Close.assertClose(toDouble(cpu), toDouble(split2), 1e-5, 1e-5, "split decoder block vs cpu");
        }
    }

    /** The same split graph: a fast host link makes the device worth it, a slow one sends it all to the CPU. */
    @Test
    void costModel_weighsTheTransfersOfASplit() {
        Graph g = mixed(512, 512, 512);
        HeuristicCostModel slowLink = new HeuristicCostModel(FAKE, 5_000, 50_000, 10_000, 50_000, 1_000, 0.5, false);
        Function<HeuristicCostModel, Device> pick = m -> {
            try (DeviceSelector s = new DeviceSelector(DevicePolicy.all(), costs(m), NO_ENV::get, CompileOptions.defaults(), true)) {
                return s.fastest(g).device();
            }
        };
        assertEquals(FAKE, pick.apply(FAST));
        assertEquals(Device.CPU, pick.apply(slowLink));
        try (DeviceSelector s = selector(DevicePolicy.all(), NO_ENV, true)) {
            PartitionPlan plan = Partitioner.plan(g, s.check(g, FAKE), FAKE);
            long moved = 4L * 512 * 512 * 4;
            assertEquals(moved, plan.bytesMovedPerRun());
            double kernels = 0;
            for (var n : g.nodes()) {
                kernels += CostEstimator.nodeNs(n, n.kind() == OpKind.UNARY ? HeuristicCostModel.of(Device.CPU) : FAST);
            }
            assertEquals(2 * FAST.roundtripOverheadNs() + HeuristicCostModel.of(Device.CPU).roundtripOverheadNs() + kernels
                    + moved / FAST.hostReadbackBwGbps(), s.estimateNs(g, FAKE), 1e-6);
        }
    }

    @Test
    void benchmark_ranksEveryViableDevice_andTheBenchmarkPickUsesTheWinner() {
        try (GraphDevices gd = devices(addGraph(), DevicePolicy.all().withBenchmarkPick(3), NO_ENV)) {
            gd.setParam("w", new float[] {1, 2});
            Map<String, Tensor> in = Map.of("x", Tensor.of(new float[] {3, 4}, 2));
            List<BenchmarkResult> ranked = gd.benchmark(in, 3);
            assertEquals(2, ranked.size());
            assertTrue(ranked.get(0).nsPerRun() <= ranked.get(1).nsPerRun());
            assertTrue(ranked.stream().allMatch(r -> r.error() == null && r.runs() == 3));
            DeviceChoice c = gd.resolveWithInputs(null, in);
            assertTrue(c.reason().startsWith("benchmark winner"), c.reason());
            assertEquals(Device.CPU, gd.resolveWithInputs(Device.CPU, in).device());
        }
    }

    @Test
    void invalidateCache_dropsExecutables_keepsParams() {
        try (GraphDevices gd = devices(addGraph(), DevicePolicy.all(), NO_ENV)) {
            gd.setParam("w", new float[] {1, 2});
            gd.warmAll();
            assertEquals(List.of(Device.CPU, FAKE), gd.compiledDevices());
            gd.invalidateCache();
            assertTrue(gd.compiledDevices().isEmpty());
            assertArrayEquals(new float[] {4, 6}, gd.run(FAKE, Map.of("x", new float[] {3, 4})).get(0));
            gd.setPolicy(DevicePolicy.only(Device.CPU));
            assertEquals(List.of(Device.CPU), gd.devices());
            assertArrayEquals(new float[] {4, 6}, gd.run(Device.CPU, Map.of("x", new float[] {3, 4})).get(0));
        }
    }

    @Test
    void router_warmsEveryDevice_andStartsOverWhenTheHostThrottles() {
        AtomicInteger asked = new AtomicInteger();
        GraphDevices gd = devices(addGraph(), DevicePolicy.all(), NO_ENV);
        try (DeviceRouter r = new DeviceRouter(gd, () -> asked.incrementAndGet() == 2)) {
            assertEquals(List.of(Device.CPU, FAKE), gd.compiledDevices());
            r.setParam("w", new float[] {1, 2});
            assertArrayEquals(new float[] {4, 6}, r.runOn(Device.CPU, Map.of("x", new float[] {3, 4})).get(0));
            assertEquals(0, r.rebenches());
            DeviceRun<Tensor> run = r.run(Map.of("x", Tensor.of(new float[] {3, 4}, 2)), null);
            assertEquals(1, r.rebenches());
            assertEquals(Device.CPU, run.device());
            assertArrayEquals(new float[] {4, 6}, run.outputs().get(0).toFloatArray());
            assertEquals(List.of(Device.CPU, FAKE), gd.compiledDevices(), "re-warmed after throttling");
            assertEquals(List.of("gpu", "cpu"), r.devices(), "the platform order: accelerators first");
        }
    }

    static double[] toDouble(float[] f) {
        double[] d = new double[f.length];
        for (int i = 0; i < f.length; i++) {
            d[i] = f[i];
        }
        return d;
    }
}
