package dev.rlx.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.CommandLineOptionException;

/**
 * JMH's command line ({@code ./rlx-bench/run}), plus a table of ratios against peers measured in the same run:
 * for every benchmark class and parameter set that has an {@code rlx} method, each other method's score over
 * the {@code rlx} score (for time modes, above 1 means RLX is faster); for {@link CpuSuiteBenchmark}, also the
 * suite's table of rates, JSON and chart ({@link CpuSuiteReport}). {@code ./rlx-bench/run paired ...} runs the
 * CPU suite's cases with RLX and the peer alternated in one process instead ({@link CpuSuitePaired}); {@code
 * ./rlx-bench/run minilm-memory} prints what MiniLM at three sequence lengths keeps resident
 * ({@link MiniLmMemoryReport}); {@code ./rlx-bench/run stability CASE} times RLX alone in several fresh JVMs
 * ({@link Stability}); {@code ./rlx-bench/run Models} runs the ONNX model corpus against ONNX Runtime
 * ({@link ModelsBench}); {@code ./rlx-bench/run spark-embed} embeds short texts with RLX alone, RLX on
 * Spark and ONNX Runtime on Spark ({@link SparkEmbedBench}); {@code ./rlx-bench/run compile-chain} times the
 * compile of a 40,000-node MatMul/ReLU chain ({@link CompileChain}); {@code ./rlx-bench/run Llm} generates with
 * a synthetic Llama on RLX and llama.cpp ({@link LlmBench}); {@code ./rlx-bench/run serve-load} drives
 * {@code rlx serve}'s server with streaming clients ({@link ServeLoad}).
 */
public final class BenchMain {
    private BenchMain() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("paired")) {
            CpuSuitePaired.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("pipelined-paired")) {
            PipelinedPaired.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("stability")) {
            Stability.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("stability-child")) {
            Stability.childMain(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("Models")) {
            ModelsBench.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("models-profile")) {
            ModelsProfile.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("models-first")) {
            ModelsBench.childMain(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("spark-embed")) {
            SparkEmbedBench.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("compile-chain")) {
            CompileChain.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("Llm")) {
            LlmBench.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("llm-llamacpp")) {
            LlmBench.llamaCppChild(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("serve-load")) {
            ServeLoad.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("minilm-memory")) {
            MiniLmMemoryReport.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        CommandLineOptions options;
        try {
            options = new CommandLineOptions(args);
        } catch (CommandLineOptionException e) {
            org.openjdk.jmh.Main.main(args); // JMH reports the bad option
            return;
        }
        if (options.shouldHelp() || options.shouldList() || options.shouldListWithParams()
                || options.shouldListProfilers() || options.shouldListResultFormats()) {
            org.openjdk.jmh.Main.main(args);
            return;
        }
        Collection<RunResult> results = new Runner(options).run();
        System.out.print(ratios(results));
        CpuSuiteReport.report(results);
    }

    /** The side measured by the benchmark under test. */
    static final String RLX = "rlx";
    /** A parameter naming the side ({@link #RLX} or a peer), for benchmarks that run both in one method. */
    static final String WHO = "who";

    /** The side {@code r} measured: its {@link #WHO} parameter, or else its method's name. */
    static String side(RunResult r) {
        String who = r.getParams().getParam(WHO);
        if (who != null) {
            return who;
        }
        String name = r.getParams().getBenchmark();
        return name.substring(name.lastIndexOf('.') + 1);
    }

    /** The ratio table, or an empty string when no benchmark has both an {@code rlx} side and a peer. */
    static String ratios(Collection<RunResult> results) {
        Map<String, Map<String, RunResult>> groups = new LinkedHashMap<>(); // class + params -> side -> result
        for (RunResult r : results) {
            String name = r.getParams().getBenchmark();
            String cls = name.substring(0, name.lastIndexOf('.'));
            StringBuilder key = new StringBuilder(cls.substring(cls.lastIndexOf('.') + 1));
            for (String p : r.getParams().getParamsKeys()) {
                if (!p.equals(WHO)) {
                    key.append(' ').append(p).append('=').append(r.getParams().getParam(p));
                }
            }
            groups.computeIfAbsent(key.toString(), k -> new LinkedHashMap<>()).put(side(r), r);
        }
        List<String> rows = new ArrayList<>();
        for (Map.Entry<String, Map<String, RunResult>> g : groups.entrySet()) {
            RunResult rlx = g.getValue().get(RLX);
            if (rlx == null) {
                continue;
            }
            double base = rlx.getPrimaryResult().getScore();
            for (Map.Entry<String, RunResult> m : g.getValue().entrySet()) {
                if (m.getKey().equals(RLX)) {
                    continue;
                }
                double peer = m.getValue().getPrimaryResult().getScore();
                rows.add(String.format(Locale.ROOT, "%-50s %14.3f %14.3f  %-12s %8.2f", g.getKey(), base, peer,
                        m.getKey(), peer / base));
            }
        }
        if (rows.isEmpty()) {
            return "";
        }
        String unit = results.iterator().next().getPrimaryResult().getScoreUnit();
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%n%-50s %14s %14s  %-12s %8s%n", "benchmark",
                "rlx " + unit, "peer " + unit, "peer", "peer/rlx"));
        rows.forEach(r -> out.append(r).append('\n'));
        out.append("(JMH ran each side in a fork of its own, apart in time: for a ratio, run the case with `paired`,"
                + " which alternates RLX and the peer in one process and prints the quartiles)\n");
        return out.toString();
    }
}
