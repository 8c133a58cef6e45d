package dev.rlx.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Whether RLX runs at the same speed in every process ({@code ./rlx-bench/run stability minilm:fp32:128 threads=1
 * jvms=10}): N fresh JVMs, one after another; each builds the cases in the order given (so
 * {@code sgemm:1024,softmax:4096x4096} times softmax after SGEMM's kernels were compiled), warms RLX up, then
 * alternates one-second blocks of RLX and of the case's peer (ONNX Runtime, OpenBLAS, a memory copy...) as
 * {@code paired} does. Per JVM and case it prints RLX's median over the blocks and its spread (slowest block over
 * the median), the peer's median and spread, the ratio peer / RLX and the spread of the per-round RLX/peer
 * ratio; then, per case, the slowest JVM over the fastest for RLX, for the peer and for the ratio. The peer is the control: on this shared machine the host drifts by a third
 * within minutes, which moves both sides; a JIT mode that compiles RLX's kernels worse in some processes moves
 * RLX and the ratio only. Cases are those of {@code paired} (see {@link ModelCases} and {@link CpuSuiteCases}).
 */
final class Stability {
    private Stability() {}

    private static final String MARK = "STABILITY ";

    /** One JVM's blocks of one case, in milliseconds per call (each block's median call). */
    private record Blocks(double[] rlx, double[] peer) {
        double rlxMedian() {
            return median(rlx);
        }

        double peerMedian() {
            return median(peer);
        }

        double spread() {
            return Arrays.stream(rlx).max().orElseThrow() / rlxMedian();
        }

        double peerSpread() {
            return Arrays.stream(peer).max().orElseThrow() / peerMedian();
        }

        /**
         * The slowest round's RLX/peer time over the median round's: RLX's own spread with the host's drift (which
         * moves the peer's block next to it too) taken out.
         */
        double relativeSpread() {
            double[] r = new double[rlx.length];
            for (int i = 0; i < r.length; i++) {
                r[i] = rlx[i] / peer[i];
            }
            return Arrays.stream(r).max().orElseThrow() / median(r);
        }
    }

    static void main(String[] args) throws Exception {
        String ids = "minilm:fp32:128";
        int threads = 1;
        int jvms = 10;
        int warmup = 20;
        int iterations = 10;
        for (String a : args) {
            if (a.startsWith("threads=")) {
                threads = Integer.parseInt(a.substring(8));
            } else if (a.startsWith("jvms=")) {
                jvms = Integer.parseInt(a.substring(5));
            } else if (a.startsWith("warmup=")) {
                warmup = Integer.parseInt(a.substring(7));
            } else if (a.startsWith("iterations=")) {
                iterations = Integer.parseInt(a.substring(11));
            } else {
                ids = a;
            }
        }
        System.out.printf(Locale.ROOT, "%s, %d thread(s), %d fresh JVMs, %d s warm-up, %d rounds of one-second RLX and"
                + " peer blocks%n", ids, threads, jvms, warmup, iterations);
        Map<String, List<Blocks>> byCase = new LinkedHashMap<>();
        for (int j = 0; j < jvms; j++) {
            Map<String, Blocks> run = child(ids, threads, warmup, iterations);
            for (Map.Entry<String, Blocks> e : run.entrySet()) {
                Blocks b = e.getValue();
                byCase.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(b);
                System.out.printf(Locale.ROOT, "JVM %2d %-22s RLX %9.4f ms (max/median %.3f)  peer %9.4f ms "
                        + "(max/median %.3f)  peer/RLX %.3f (round RLX/peer max/median %.3f)%n", j + 1, e.getKey(),
                        b.rlxMedian(), b.spread(), b.peerMedian(), b.peerSpread(), b.peerMedian() / b.rlxMedian(),
                        b.relativeSpread());
            }
        }
        for (Map.Entry<String, List<Blocks>> e : byCase.entrySet()) {
            List<Blocks> l = e.getValue();
            double[] rlx = l.stream().mapToDouble(Blocks::rlxMedian).toArray();
            double[] peer = l.stream().mapToDouble(Blocks::peerMedian).toArray();
            double[] ratio = l.stream().mapToDouble(b -> b.peerMedian() / b.rlxMedian()).toArray();
            double spread = l.stream().mapToDouble(Blocks::spread).max().orElseThrow();
            double peerSpread = l.stream().mapToDouble(Blocks::peerSpread).max().orElseThrow();
            double relative = l.stream().mapToDouble(Blocks::relativeSpread).max().orElseThrow();
            System.out.printf(Locale.ROOT, "%s: slowest JVM / fastest JVM: RLX %.3f, peer %.3f, ratio max/min %.3f "
                    + "(median ratio %.3f); worst within-JVM max/median: RLX %.3f, peer %.3f, round RLX/peer %.3f%n",
                    e.getKey(), maxOverMin(rlx), maxOverMin(peer), maxOverMin(ratio), median(ratio), spread,
                    peerSpread, relative);
        }
    }

    private static double maxOverMin(double[] v) {
        return Arrays.stream(v).max().orElseThrow() / Arrays.stream(v).min().orElseThrow();
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    /** Runs one fresh JVM with this one's class path and flags; returns its blocks per case, in case order. */
    private static Map<String, Blocks> child(String ids, int threads, int warmup, int iterations) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(BenchMain.class.getName());
        cmd.add("stability-child");
        cmd.add(ids);
        cmd.add(String.valueOf(threads));
        cmd.add(String.valueOf(warmup));
        cmd.add(String.valueOf(iterations));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        Map<String, Blocks> out = new LinkedHashMap<>();
        List<String> other = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (line.startsWith(MARK)) {
                    String[] f = line.substring(MARK.length()).trim().split(" ");
                    int n = (f.length - 1) / 2;
                    double[] rlx = new double[n];
                    double[] peer = new double[n];
                    for (int i = 0; i < n; i++) {
                        rlx[i] = Double.parseDouble(f[1 + i]);
                        peer[i] = Double.parseDouble(f[1 + n + i]);
                    }
                    out.put(f[0], new Blocks(rlx, peer));
                } else {
                    other.add(line);
                }
            }
        }
        if (p.waitFor() != 0 || out.isEmpty()) {
            throw new IllegalStateException("the measuring JVM failed (exit " + p.exitValue() + ") for " + ids + ": "
                    + String.join("\n", other.subList(Math.max(0, other.size() - 20), other.size())));
        }
        return out;
    }

    /**
     * In the child JVM: build each case in turn, warm its RLX side up for the warm-up time (its peer for the
     * paired warm-up), alternate the blocks, print them on one line per case: the id, RLX's blocks, the peer's.
     */
    static void childMain(String[] args) throws Exception {
        int threads = Integer.parseInt(args[1]);
        long warmupNs = Long.parseLong(args[2]) * 1_000_000_000L;
        int iterations = Integer.parseInt(args[3]);
        for (String id : args[0].split(",")) {
            try (CpuSuiteCase c = ModelCases.handles(id) ? ModelCases.create(id, threads)
                    : CpuSuiteCases.create(id, threads)) {
                long end = System.nanoTime() + warmupNs;
                while (System.nanoTime() < end) {
                    c.rlx.run();
                }
                CpuSuitePaired.warm(c.peer);
                double[][] blocks = CpuSuitePaired.rounds(c.rlx, c.peer, iterations, 1_000_000_000L);
                StringBuilder sb = new StringBuilder(MARK).append(id);
                for (double[] side : blocks) {
                    for (double s : side) {
                        sb.append(String.format(Locale.ROOT, " %.5f", s * 1e3));
                    }
                }
                System.out.println(sb);
            }
        }
    }
}
