package dev.rlx.bench;

import dev.rlx.cpu.blas.OpenBlas;
import dev.rlx.cpu.kernels.VectorMath;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.openjdk.jmh.annotations.Param;

/**
 * The CPU suite's cases with RLX and the peer alternated in one process ({@code ./rlx-bench/run paired}): on a
 * shared machine whose speed drifts by a third within seconds (a vCPU's host sibling getting busy), JMH's
 * separate forks compare RLX and the peer under different conditions; alternating 0.4-second blocks and taking
 * the median of the per-round ratios compares them under the same ones. Each block first runs 0.12 s untimed,
 * so the other side's idle threads (OpenBLAS's spin for about 0.1 s after a call) have gone to sleep.
 *
 * <p>Arguments: case names ({@code sgemm:1024 apisgemm:1024 softmax:4096x4096 ...}, default all of
 * {@link CpuSuiteBenchmark}'s; also the whole-model and FFT cases of {@link ModelCases}, such as
 * {@code minilm:fp32:128} and {@code fft:real:12}) and {@code threads=1,2}. Prints one line per case: median rates
 * (or milliseconds per call) and the ratio's median and quartiles.
 */
final class CpuSuitePaired {
    private CpuSuitePaired() {}

    private static final long WARMUP_NS = 3_000_000_000L;
    private static final long BLOCK_NS = 400_000_000L;
    private static final long SETTLE_NS = 120_000_000L;
    private static final int ROUNDS = 9;

    static void main(String[] args) throws Exception {
        List<String> ops = new ArrayList<>();
        int[] threads = {1, 2};
        for (String a : args) {
            if (a.startsWith("threads=")) {
                threads = Arrays.stream(a.substring(8).split(",")).mapToInt(Integer::parseInt).toArray();
            } else {
                ops.add(a);
            }
        }
        if (ops.isEmpty()) { // the JMH suite's cases
            ops.addAll(List.of(CpuSuiteBenchmark.class.getDeclaredField("op").getAnnotation(Param.class).value()));
        }
        OpenBlas.load().ifPresent(b -> System.out.println("OpenBLAS peer: " + b.source() + ", core "
                + b.coreName() + "; RLX vectors " + VectorMath.F.vectorBitSize() + " bits"));
        System.out.printf(Locale.ROOT, "%-12s %-22s %7s %12s %12s %7s %13s%n", "operation", "shape", "threads", "RLX",
                "peer", "ratio", "(q1 - q3)");
        for (String op : ops) {
            for (int t : threads) {
                try (CpuSuiteCase c = ModelCases.handles(op) ? ModelCases.create(op, t) : CpuSuiteCases.create(op, t)) {
                    System.out.println(row(c, t));
                }
            }
        }
    }

    private static String row(CpuSuiteCase c, int threads) {
        Paired p = alternate(c.rlx, c.peer, ROUNDS);
        CpuSuiteCase.Info info = c.info;
        boolean ms = info.unit() == CpuSuiteCase.Unit.MS;
        String unit = ms ? "ms  " : info.unit() == CpuSuiteCase.Unit.GFLOP ? "GF/s" : "GB/s";
        double r = ms ? p.rlxSeconds() * 1e3 : info.work() / p.rlxSeconds();
        double q = ms ? p.peerSeconds() * 1e3 : info.work() / p.peerSeconds();
        return String.format(Locale.ROOT, "%-12s %-22s %7d %7.4g %s %7.4g %s %7.2f  (%.2f - %.2f)", info.op(),
                info.shape(), threads, r, unit, q, unit, p.ratio(), p.q1(), p.q3());
    }

    /**
     * RLX and the peer alternated: median seconds per call of each side over {@code rounds} blocks, and the median
     * and quartiles of the per-round ratio peer / RLX (above 1, RLX is faster).
     */
    record Paired(double rlxSeconds, double peerSeconds, double ratio, double q1, double q3) {}

    /** Both sides warmed up, then {@code rounds} rounds of one block each, as {@link #main} runs every case. */
    static Paired alternate(Runnable rlxSide, Runnable peerSide, int rounds) {
        warm(rlxSide);
        warm(peerSide);
        double[][] blocks = rounds(rlxSide, peerSide, rounds, BLOCK_NS);
        double[] rlx = blocks[0];
        double[] peer = blocks[1];
        double[] ratio = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            ratio[r] = peer[r] / rlx[r]; // seconds per call: above 1, RLX is faster
        }
        Arrays.sort(rlx);
        Arrays.sort(peer);
        Arrays.sort(ratio);
        return new Paired(median(rlx), median(peer), median(ratio), ratio[rounds / 4], ratio[rounds - 1 - rounds / 4]);
    }

    /**
     * {@code rounds} rounds of one RLX block then one peer block of {@code blockNs} each (the first 0.12 s
     * untimed), both sides already warm: each block's median
     * seconds per call, RLX's in {@code [0]} and the peer's in {@code [1]}, in round order.
     */
    static double[][] rounds(Runnable rlxSide, Runnable peerSide, int rounds, long blockNs) {
        double[] rlx = new double[rounds];
        double[] peer = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            rlx[r] = block(rlxSide, blockNs);
            peer[r] = block(peerSide, blockNs);
        }
        return new double[][] {rlx, peer};
    }

    static void warm(Runnable side) {
        long end = System.nanoTime() + WARMUP_NS;
        while (System.nanoTime() < end) {
            side.run();
        }
    }

    /** Median seconds per call over one block, after its untimed start. */
    private static double block(Runnable side, long blockNs) {
        long start = System.nanoTime();
        while (System.nanoTime() - start < SETTLE_NS) {
            side.run();
        }
        List<Long> calls = new ArrayList<>();
        long blockEnd = start + blockNs;
        do {
            long t0 = System.nanoTime();
            side.run();
            calls.add(System.nanoTime() - t0);
        } while (System.nanoTime() < blockEnd || calls.size() < 3);
        calls.sort(null);
        return calls.get(calls.size() / 2) / 1e9;
    }

    private static double median(double[] sorted) {
        return sorted[sorted.length / 2];
    }
}
