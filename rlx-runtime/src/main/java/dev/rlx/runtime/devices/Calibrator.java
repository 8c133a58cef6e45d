package dev.rlx.runtime.devices;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.runtime.spi.DeviceAllocator;
import dev.rlx.runtime.spi.DeviceBuffer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Measures a backend's {@link Calibration} with its own kernels, in about 100 ms of settled runs (compiling the probe
 * graphs, and a cold JVM's warm-up of the CPU kernels, come on top: see {@link #PROBE_CAP_NS}): a GEMM at {@link #SMALL} and {@link #LARGE}, a one-kernel run (round trip), a chain of tiny
 * matmuls (dispatch), an element-wise pass over 4 MiB (memory bandwidth) and a 4 MiB copy each way through the
 * allocator (host bandwidth). Each figure is the fastest of its repetitions, so background load inflates it less.
 */
public final class Calibrator {
    /**
     * A measurement and whether every probe settled; when the first probe does not settle the rest are skipped and
     * {@code calibration} is null.
     */
    public record Result(Calibration calibration, boolean settled) {}

    /** m, k, n of the small GEMM probe. */
    public static final int[] SMALL = {8, 64, 64};
    /** m, k, n of the large GEMM probe. */
    public static final int[] LARGE = {128, 256, 256};
    private static final long PROBE_BUDGET_NS = 16_000_000;
    /** One round of timed runs of a probe. */
    static final long ROUND_NS = 8_000_000;
    /** The most one probe may take while the JIT warms up. */
    static final long PROBE_CAP_NS = 400_000_000L;
    private static final int COPY_BYTES = 4 << 20;



    /** Measures {@code session}'s backend on the host with {@code fingerprint}. */
    public static Result measure(Session session, String fingerprint) {
        return new Calibrator().run(session, fingerprint);
    }

    private Result run(Session session, String fingerprint) {
        boolean[] settled = {true};
        double small = gemm(session, SMALL, settled);
        if (!settled[0]) {
            return new Result(null, false); // the rest would not settle either: do not spend more time
        }
        double large = gemm(session, LARGE, settled);
        if (session.device() == Device.CPU && large < Calibration.CPU_MIN_LARGE_GEMM_GFLOPS) {
            return new Result(null, false); // two slow rounds of interpreted kernels looked settled: not the CPU's rate
        }
        double roundtrip;
        double dispatch;
        double memBw;
        try (CompiledGraph one = session.compile(chain(1)); CompiledGraph eight = session.compile(chain(8))) {
            roundtrip = Math.max(CostUnits.MIN_OVERHEAD_NS, best(one, settled));
            double t8 = best(eight, settled);
            int extra = eight.kernelCount() - one.kernelCount();
            dispatch = Math.max(CostUnits.MIN_OVERHEAD_NS, extra > 0 ? (t8 - roundtrip) / extra : roundtrip / 2);
        }
        int n = COPY_BYTES / 4;
        Graph ew = new Graph("calib-stream");
        Value x = ew.input("x", Shape.of(DType.F32, n));
        ew.setOutputs(ew.add(x, ew.scalar(1f)));
        try (CompiledGraph c = session.compile(ew)) {
            c.setInput("x", data(n));
            double t = Math.max(1, best(c, settled) - roundtrip);
            memBw = clampBw(2.0 * COPY_BYTES / t);
        }
        DeviceAllocator alloc = session.runtime().allocator();
        double hostBw;
        boolean unified;
        DeviceBuffer buf = alloc.allocate(COPY_BYTES);
        try (Arena arena = Arena.ofConfined()) {
            unified = buf.host() != null;
            MemorySegment host = arena.allocate(COPY_BYTES, 64);
            for (long i = 0; i < COPY_BYTES; i += 4) {
                host.set(ValueLayout.JAVA_FLOAT_UNALIGNED, i, (float) (i % 977) * 0.001f);
            }
            long bestNs = Long.MAX_VALUE;
            long end = System.nanoTime() + PROBE_BUDGET_NS;
            for (int r = 0; r < 3 || (r < 50 && System.nanoTime() < end); r++) {
                long t0 = System.nanoTime();
                alloc.copyToDevice(host, buf, 0);
                alloc.copyToHost(buf, 0, host);
                bestNs = Math.min(bestNs, System.nanoTime() - t0);
            }
            hostBw = clampBw(2.0 * COPY_BYTES / Math.max(1, bestNs));
        } finally {
            alloc.free(buf);
        }
        return new Result(new Calibration(Calibration.SCHEMA_VERSION, session.device(), session.backendName(), fingerprint,
                small, large, roundtrip, dispatch, memBw, hostBw, unified, System.currentTimeMillis()).validated(),
                settled[0]);
    }

    private static double clampBw(double gbps) {
        return Math.min(CostUnits.MAX_GBPS, Math.max(CostUnits.MIN_GBPS, gbps));
    }

    /** GFLOP/s (FLOP per ns) of {@code session}'s matmul at {@code mkn}. */
    private double gemm(Session session, int[] mkn, boolean[] settled) {
        int m = mkn[0];
        int k = mkn[1];
        int n = mkn[2];
        Graph g = new Graph("calib-gemm-" + m + "x" + k + "x" + n);
        Value a = g.input("a", Shape.of(DType.F32, m, k));
        Value b = g.param("b", Shape.of(DType.F32, k, n));
        g.setOutputs(g.matmul(a, b));
        try (CompiledGraph c = session.compile(g)) {
            c.setInput("a", data(m * k));
            c.setParam("b", data(k * n));
            double ns = Math.max(1, best(c, settled));
            return Math.min(CostUnits.MAX_GFLOPS, Math.max(CostUnits.MIN_GFLOPS, 2.0 * m * k * n / ns));
        }
    }

    /** {@code links} dependent 1x1 matmuls: as many kernels as links, each doing nearly nothing. */
    private static Graph chain(int links) {
        Graph g = new Graph("calib-chain-" + links);
        Value x = g.input("x", Shape.of(DType.F32, 1, 1));
        Value w = g.param("w", Shape.of(DType.F32, 1, 1));
        Value y = x;
        for (int i = 0; i < links; i++) {
            y = g.matmul(y, w);
        }
        g.setOutputs(y);
        return g;
    }

    /**
     * The fastest run of {@code c} (inputs of a chain graph set here), in ns, once it has settled: rounds of runs
     * (each about {@link #ROUND_NS}) until a round's best is within 15% of the previous round's, at most
     * {@link #PROBE_CAP_NS}. A cold JVM runs the CPU's kernels interpreted for the first many calls, so a fixed short
     * burst would measure the interpreter; a settled figure is what a long-running program sees.
     */
    private double best(CompiledGraph c, boolean[] settled) {
        if (c.inputNames().contains("x") && c.paramNames().contains("w")) {
            c.setInput("x", new float[] {0.5f});
            c.setParam("w", new float[] {0.99f});
        }
        long cap = System.nanoTime() + PROBE_CAP_NS;
        long previous = Long.MAX_VALUE;
        long best = Long.MAX_VALUE;
        for (int round = 0; ; round++) {
            long roundBest = Long.MAX_VALUE;
            long end = System.nanoTime() + ROUND_NS;
            for (int r = 0; r == 0 || (r < 1000 && System.nanoTime() < Math.min(end, cap)); r++) {
                long t0 = System.nanoTime();
                c.run();
                roundBest = Math.min(roundBest, System.nanoTime() - t0);
            }
            best = Math.min(best, roundBest);
            if (round >= 1 && roundBest >= 0.85 * previous) {
                return best;
            }
            if (System.nanoTime() > cap) {
                settled[0] = false;
                return best;
            }
            previous = roundBest;
        }
    }

    private static float[] data(int n) {
        float[] d = new float[n];
        for (int i = 0; i < n; i++) {
            d[i] = ((i * 7919) % 1013) / 1013f - 0.5f;
        }
        return d;
    }
}
