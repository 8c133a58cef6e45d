package dev.rlx.bench;

import dev.rlx.onnx.embed.MiniLm;
import dev.rlx.opt.PrecisionPolicy;
import java.util.List;

/**
 * {@code ./rlx-bench/run models-profile NAME [runs=2000] [threads=1] [graph=1] [before=NAME]}: one corpus model (or
 * {@code minilm:<fp32|int8>:<seq>}) through RLX alone, run that many times after its first run, with the steady
 * mean per run printed; run with {@code RLX_TRACE=1} for the per-kernel totals (printed when the graph is closed),
 * which say where a model's time goes. {@code before=NAME} compiles and runs another model first (a quarter of the
 * runs), for compile-order effects; {@code graph=1} prints the compiled graph first (each kernel's op, attributes
 * and shapes, to match the trace's {@code %id}s).
 */
final class ModelsProfile {
    private ModelsProfile() {}

    static void main(String[] args) {
        String name = args[0];
        int runs = 2000;
        int threads = 1;
        boolean graph = false;
        String before = null;
        for (String a : List.of(args).subList(1, args.length)) {
            if (a.startsWith("runs=")) {
                runs = Integer.parseInt(a.substring(5));
            } else if (a.startsWith("threads=")) {
                threads = Integer.parseInt(a.substring(8));
            } else if (a.equals("graph=1")) {
                graph = true;
            } else if (a.startsWith("before=")) {
                before = a.substring(7);
            }
        }
        if (before != null) { // another model compiled and warmed up first: does its JIT state slow this one?
            try (RlxModel b = open(before, threads)) {
                for (int i = 0; i < runs / 4; i++) {
                    b.run();
                }
            }
        }
        try (RlxModel r = open(name, threads)) {
            System.out.printf("%s: load %.0f ms, import %.0f ms, compile %.0f ms, first run %.0f ms, %d kernels%n",
                    name, r.loadMs, r.importMs, r.compileMs, r.firstRunMs, r.kernels());
            if (graph) {
                System.out.println(dev.rlx.ir.GraphPrinter.print(r.graph()));
            }
            int warm = Math.max(1, runs / 4);
            for (int i = 0; i < warm; i++) {
                r.run();
            }
            long t0 = System.nanoTime();
            for (int i = 0; i < runs; i++) {
                r.run();
            }
            System.out.printf("%s: %.4f ms per run over %d runs after %d warm-up runs (%d thread(s))%n", name,
                    (System.nanoTime() - t0) / 1e6 / runs, runs, warm, threads);
        }
    }

    /**
     * A corpus model by name, or {@code minilm:<fp32|int8>:<seq>[x<batch>]}: all-MiniLM-L6-v2, batch 1 unless
     * given (as in paired).
     */
    private static RlxModel open(String name, int threads) {
        if (name.startsWith("minilm:")) {
            String[] p = name.split(":");
            if (p.length != 3 || !(p[1].equals("fp32") || p[1].equals("int8"))
                    || !p[2].matches("[1-9][0-9]{0,3}(x[1-9][0-9]{0,2})?")) {
                throw new IllegalArgumentException("expected minilm:<fp32|int8>:<sequence length>[x<batch>], got "
                        + name);
            }
            MiniLm which = p[1].equals("int8") ? MiniLm.INT8 : MiniLm.FP32;
            String[] sb = p[2].split("x");
            int seq = Integer.parseInt(sb[0]);
            int batch = sb.length > 1 ? Integer.parseInt(sb[1]) : 1;
            return new RlxModel(which::model, MiniLmBenchmark.inputs(MiniLmBenchmark.tokens(seq, batch), batch, seq),
                    threads, PrecisionPolicy.F32);
        }
        CorpusModel m = CorpusModel.corpus().stream().filter(c -> c.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no corpus model " + name));
        return new RlxModel(m.file(), m.makeInputs(), threads, PrecisionPolicy.F32);
    }
}
