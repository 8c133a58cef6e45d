package dev.rlx.bench;

import java.util.Arrays;
import java.util.Locale;
import org.openjdk.jmh.infra.Blackhole;

/**
 * {@link PipelinedRunBenchmark}'s two methods alternated in one process ({@code ./rlx-bench/run pipelined-paired
 * [ROUNDS] [PREP_PASSES] [PIPELINE_THREADS]}), so load from other processes hits both alike: after warm-up rounds, each round times one
 * call of each (32 runs), in alternating order; prints the medians and their ratio (above 1: pipelining is faster).
 */
public final class PipelinedPaired {
    private PipelinedPaired() {}

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        int prep = args.length > 1 ? Integer.parseInt(args[1]) : 64;
        int threads = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        PipelinedRunBenchmark b = new PipelinedRunBenchmark();
        b.prepPasses = prep;
        b.pipelineThreads = threads;
        b.setUp();
        Blackhole bh = new Blackhole("Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.");
        try {
            for (int i = 0; i < 5; i++) {
                b.sequential(bh);
                b.pipelined(bh);
            }
            double[] seq = new double[rounds];
            double[] pipe = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                boolean seqFirst = r % 2 == 0;
                for (int k = 0; k < 2; k++) {
                    long t0 = System.nanoTime();
                    if (seqFirst == (k == 0)) {
                        b.sequential(bh);
                        seq[r] = (System.nanoTime() - t0) / 1e6;
                    } else {
                        b.pipelined(bh);
                        pipe[r] = (System.nanoTime() - t0) / 1e6;
                    }
                }
            }
            double[] prepOnly = new double[rounds];
            double[] runsOnly = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                long t0 = System.nanoTime();
                b.prepOnly(bh);
                prepOnly[r] = (System.nanoTime() - t0) / 1e6;
                t0 = System.nanoTime();
                b.runsOnly(bh);
                runsOnly[r] = (System.nanoTime() - t0) / 1e6;
            }
            double ms = median(seq);
            double mp = median(pipe);
            System.out.printf(Locale.ROOT, "decoder block, 32 runs, prep %d passes, pipeline threads %d, %d rounds: "
                    + "sequential %.1f ms, pipelined %.1f ms (medians), sequential/pipelined = %.2f%n", prep, threads, rounds,
                    ms, mp, ms / mp);
            System.out.printf(Locale.ROOT, "  parts: 32 preparations alone %.1f ms, 32 runs alone %.1f ms (the sequential"
                    + " bound is their sum, the pipelined one the larger)%n", median(prepOnly), median(runsOnly));
        } finally {
            b.tearDown();
        }
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
