package dev.rlx.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Whether RLX runs at the same speed in every process ({@code ./rlx-bench/run stability minilm:fp32:128 threads=1
 * jvms=10}): the case's RLX side alone in N fresh JVMs, one after another, each warming up, then timing a series of
 * one-second iterations (the median call of each). Prints each JVM's steady-state median and its spread (slowest
 * iteration over its median), then the slowest JVM over the fastest. A JIT mode that compiles the kernels worse in
 * some processes shows as one JVM apart from the others. Cases are those of {@code paired} (see {@link ModelCases}
 * and {@link CpuSuiteCases}).
 */
final class Stability {
    private Stability() {}

    private static final String MARK = "STABILITY ";

    static void main(String[] args) throws Exception {
        String id = "minilm:fp32:128";
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
                id = a;
            }
        }
        System.out.printf(Locale.ROOT, "%s, %d thread(s), %d fresh JVMs, %d s warm-up, %d one-second iterations%n", id,
                threads, jvms, warmup, iterations);
        double[] medians = new double[jvms];
        double worstSpread = 0;
        for (int j = 0; j < jvms; j++) {
            double[] it = child(id, threads, warmup, iterations);
            double[] sorted = it.clone();
            Arrays.sort(sorted);
            medians[j] = sorted[sorted.length / 2];
            double spread = sorted[sorted.length - 1] / medians[j];
            worstSpread = Math.max(worstSpread, spread);
            System.out.printf(Locale.ROOT, "JVM %2d: median %8.3f ms, iterations %8.3f .. %8.3f ms (max/median %.3f)%n",
                    j + 1, medians[j], sorted[0], sorted[sorted.length - 1], spread);
        }
        double[] m = medians.clone();
        Arrays.sort(m);
        System.out.printf(Locale.ROOT, "slowest JVM / fastest JVM: %.3f; worst within-JVM max/median: %.3f%n",
                m[m.length - 1] / m[0], worstSpread);
    }

    /** Runs one fresh JVM with this one's class path and flags; returns its iterations' medians in ms. */
    private static double[] child(String id, int threads, int warmup, int iterations) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(BenchMain.class.getName());
        cmd.add("stability-child");
        cmd.add(id);
        cmd.add(String.valueOf(threads));
        cmd.add(String.valueOf(warmup));
        cmd.add(String.valueOf(iterations));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        double[] out = null;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (line.startsWith(MARK)) {
                    out = Arrays.stream(line.substring(MARK.length()).trim().split(" ")).mapToDouble(Double::parseDouble)
                            .toArray();
                }
            }
        }
        if (p.waitFor() != 0 || out == null) {
            throw new IllegalStateException("the measuring JVM failed (exit " + p.exitValue() + ") for " + id);
        }
        return out;
    }

    /** In the child JVM: build the case, warm its RLX side up, time the iterations, print them on one line. */
    static void childMain(String[] args) throws Exception {
        String id = args[0];
        int threads = Integer.parseInt(args[1]);
        long warmupNs = Long.parseLong(args[2]) * 1_000_000_000L;
        int iterations = Integer.parseInt(args[3]);
        try (CpuSuiteCase c = ModelCases.handles(id) ? ModelCases.create(id, threads) : CpuSuiteCases.create(id, threads)) {
            long end = System.nanoTime() + warmupNs;
            while (System.nanoTime() < end) {
                c.rlx.run();
            }
            StringBuilder sb = new StringBuilder(MARK);
            for (int i = 0; i < iterations; i++) {
                List<Long> calls = new ArrayList<>();
                long stop = System.nanoTime() + 1_000_000_000L;
                do {
                    long t0 = System.nanoTime();
                    c.rlx.run();
                    calls.add(System.nanoTime() - t0);
                } while (System.nanoTime() < stop || calls.size() < 3);
                calls.sort(null);
                sb.append(String.format(Locale.ROOT, "%.4f ", calls.get(calls.size() / 2) / 1e6));
            }
            System.out.println(sb.toString().trim());
        }
    }
}
