package dev.rlx.bench;

import de.kherud.llama.InferenceParameters;
import de.kherud.llama.LlamaModel;
import de.kherud.llama.LlamaOutput;
import de.kherud.llama.ModelParameters;
import de.kherud.llama.args.LogFormat;
import dev.rlx.ir.quant.BlockFormat;
import dev.rlx.llm.engine.EngineOptions;
import dev.rlx.llm.engine.Generation;
import dev.rlx.llm.engine.GenerationRequest;
import dev.rlx.llm.engine.GenerationResult;
import dev.rlx.llm.engine.LlmEngine;
import dev.rlx.llm.engine.TokenEvent;
import dev.rlx.llm.engine.ModelInfo;
import dev.rlx.llm.gguf.GgmlType;
import dev.rlx.llm.gguf.GgufFile;
import dev.rlx.llm.kv.KvStorage;
import dev.rlx.llm.kv.PagedKvCache;
import dev.rlx.llm.kv.ScheduledBatch;
import dev.rlx.llm.model.BatchForward;
import dev.rlx.llm.tokenizer.Tokenizer;
import java.util.Optional;
import java.util.stream.IntStream;
import dev.rlx.llm.model.SyntheticLlama;
import dev.rlx.llm.tokenizer.SyntheticVocab;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./rlx-bench/run Llm [--size 1b|100m|tiny] [--types q8_0,q4_0] [--threads 1,2] [--prompt 128] [--gen 128]
 * [--rounds 1]}: a synthetic Llama GGUF per weight type (written once under {@code rlx-bench/target/llm}, then
 * reused), generated greedily by RLX ({@link LlmEngine}, in this JVM) and by llama.cpp (de.kherud:llama 4.2.0, an
 * AVX2 build, in a forked JVM as the tests run it), alternating per thread count: prefill and decode tokens/s and
 * their ratio, RLX's resident memory against the file size, and the bytes the step-loop thread allocates per
 * decoded token. {@code ./rlx-bench/run Llm batch [...] [--seqs 1,4,16]}: RLX's aggregate decode tokens/s with
 * that many sequences generating at once.
 */
public final class LlmBench {
    private LlmBench() {}


    record Args(String size, List<String> types, int[] threads, int prompt, int gen, int rounds, int[] seqs,
                boolean batch) {}

    public static void main(String[] argv) throws Exception {
        Args a = parse(argv);
        Path dir = Files.createDirectories(Path.of("target", "llm")); // the bench runs in rlx-bench/
        System.out.printf(Locale.ROOT, "Llm bench: synthetic %s model, prompt %d, generate %d; llama.cpp is"
                + " de.kherud:llama 4.2.0 (b4916), an AVX2 build; %d cores visible%n", a.size(), a.prompt(), a.gen(),
                Runtime.getRuntime().availableProcessors());
        for (String type : a.types()) {
            Path model = modelFile(dir, a.size(), type);
            long fileBytes = Files.size(model);
            if (a.batch()) {
                batch(model, a);
                continue;
            }
            for (int t : a.threads()) {
                for (int r = 0; r < a.rounds(); r++) {
                    Speed rlx = rlx(model, t, a.prompt(), a.gen());
                    Speed cpp = llamaCpp(model, t, a.prompt(), a.gen(), dir);
                    System.out.printf(Locale.ROOT, "%-5s threads %d round %d | RLX decode %7.2f tok/s prefill %8.2f"
                                    + " tok/s | llama.cpp (AVX2) decode %7.2f prefill %8.2f | decode ratio %.2fx,"
                                    + " prefill ratio %.2fx%n", type, t, r, rlx.decode, rlx.prefill, cpp.decode,
                            cpp.prefill, rlx.decode / cpp.decode, rlx.prefill / cpp.prefill);
                    if (rlx.note != null) {
                        System.out.printf(Locale.ROOT, "      RLX: %s%n", rlx.note);
                    } else {
                        System.out.printf(Locale.ROOT, "      RLX: %d tokens; resident %.0f MiB vs file %.0f MiB"
                                        + " (%.2fx); step loop allocated %.0f bytes per decoded token%n", rlx.tokens,
                                rlx.rssBytes / 1048576.0, fileBytes / 1048576.0, (double) rlx.rssBytes / fileBytes,
                                rlx.bytesPerToken);
                    }
                    if (cpp.note != null) {
                        System.out.printf(Locale.ROOT, "      llama.cpp: %s%n", cpp.note);
                    }
                }
            }
        }
    }

    record Speed(double prefill, double decode, int tokens, long rssBytes, double bytesPerToken, String note) {
        static Speed failed(String why) {
            return new Speed(Double.NaN, Double.NaN, 0, 0, Double.NaN, why);
        }
    }

    /** The synthetic model (shapes of {@code rlx gguf synth --size}), written once per size and type. */
    static Path modelFile(Path dir, String size, String type) throws Exception {
        Path p = dir.resolve("llama-" + size + "-" + type + ".gguf");
        if (Files.exists(p)) {
            return p;
        }
        GgmlType t = GgmlType.valueOf(type.toUpperCase(Locale.ROOT));
        SyntheticLlama m = switch (size) {
            case "tiny" -> SyntheticLlama.tiny(t);
            case "100m" -> new SyntheticLlama("llama", "llama-bpe", 300, 768, 12, 12, 4, 2048, 2048, t, true, 0, 42);
            case "1b" -> new SyntheticLlama("llama", "llama-bpe", 300, 2048, 16, 32, 8, 8192, 4096, t, true, 0, 42);
            default -> throw new IllegalArgumentException("--size " + size + " (tiny, 100m, 1b)");
        };
        Path tmp = dir.resolve(p.getFileName() + ".part");
        System.out.printf(Locale.ROOT, "writing %s ...%n", p);
        m.write(tmp);
        Files.move(tmp, p);
        return p;
    }

    /** {@code n} prompt tokens: the corpus's tokens, repeated (BOS first when the vocabulary adds one). */
    static int[] prompt(LlmEngine e, int n) {
        int[] text = e.tokenizer().encode(SyntheticVocab.DEFAULT_CORPUS, true, false);
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = text[i % text.length];
        }
        return p;
    }

    static Speed rlx(Path model, int threads, int promptTokens, int gen) {
        EngineOptions o = EngineOptions.defaults().withThreads(threads).withMaxSequences(1)
                .withKvStorage(BlockFormat.F16).withContextLength(promptTokens + gen + 16);
        try (LlmEngine e = openIgnoringEos(model, o)) {
            int[] p = prompt(e, promptTokens);
            // warm-up, a whole request of the measured sizes: the prompt's and decode's graphs compiled, the kernels
            // JIT-compiled, the weights touched (a JVM library's steady state; llama.cpp needs none)
            // (twice: after one request C2 was still compiling the decode kernels, and the measured request
            // allocated ~50 KB per token in their interpreted vector code)
            e.generate(GenerationRequest.of(p, gen));
            e.generate(GenerationRequest.of(p, gen));
            com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long loopId = loopThread();
            Generation g = e.submit(GenerationRequest.of(p, gen));
            long allocAtFirst = -1;
            for (TokenEvent ev; (ev = g.next()) != null; ) {
                if (allocAtFirst < 0) {
                    allocAtFirst = mx.getThreadAllocatedBytes(loopId);
                }
            }
            GenerationResult r = g.await();
            long allocated = mx.getThreadAllocatedBytes(loopId) - allocAtFirst;
            int decoded = r.completionTokens() - 1;
            return new Speed(r.promptTokens() / ((r.firstTokenNanos() - r.queuedNanos()) / 1e9),
                    decoded / ((r.totalNanos() - r.firstTokenNanos()) / 1e9), r.completionTokens(), residentBytes(),
                    (double) allocated / Math.max(1, decoded), null);
        } catch (Exception ex) {
            return Speed.failed("cannot run: " + ex.getMessage());
        }
    }

    /**
     * The engine over the file's LlamaModel with end-of-generation tokens masked out of the logits, so every run
     * generates its full count (llama.cpp's side runs with ignore-EOS too): random weights hit EOS early.
     */
    static LlmEngine openIgnoringEos(Path path, EngineOptions o) {
        GgufFile file = GgufFile.open(path);
        Tokenizer tok = Tokenizer.fromGguf(file.metadata());
        dev.rlx.llm.model.LlamaModel m = dev.rlx.llm.model.LlamaModel.load(file, dev.rlx.llm.model.LlamaModel.Options
                .defaults().withThreads(o.threads()).withKvStorage(KvStorage.valueOf(o.kvStorage().name()))
                .withMaxSequences(o.maxSequences()).withMaxBatchTokens(o.maxBatchTokens())
                .withContextLength(o.contextLength()));
        int[] eog = IntStream.range(0, tok.vocabulary().size()).filter(tok.vocabulary()::isEndOfGeneration).toArray();
        BatchForward masked = new BatchForward() {
            @Override public int vocabSize() { return m.vocabSize(); }
            @Override public int contextLength() { return m.contextLength(); }
            @Override public PagedKvCache cache() { return m.cache(); }
            @Override public void forward(ScheduledBatch batch, float[] logits) {
                m.forward(batch, logits);
                for (int i = 0; i < batch.entries().size(); i++) {
                    for (int t : eog) {
                        logits[i * m.vocabSize() + t] = Float.NEGATIVE_INFINITY;
                    }
                }
            }
            @Override public void close() {
                m.close();
                file.close();
            }
        };
        ModelInfo info = new ModelInfo(path.getFileName().toString(), m.contextLength(), m.vocabSize(),
                Optional.empty(), -1);
        return LlmEngine.of(masked, tok, info, o);
    }

    private static long loopThread() {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("rlx-llm-engine")) {
                return t.threadId();
            }
        }
        throw new IllegalStateException("no engine thread");
    }

    /** VmRSS of this process (Linux), in bytes; 0 elsewhere. */
    static long residentBytes() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (l.startsWith("VmRSS:")) {
                    return Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (Exception ignored) { // not Linux
        }
        return 0;
    }

    /** Aggregate decode tokens/s of {@code n} sequences at once (from the last first token to the last token). */
    static void batch(Path model, Args a) {
        int maxSeqs = Arrays.stream(a.seqs()).max().orElse(1);
        for (int t : a.threads()) {
            EngineOptions o = EngineOptions.defaults().withThreads(t).withMaxSequences(maxSeqs)
                    .withMaxBatchTokens(Math.max(512, maxSeqs)).withKvStorage(BlockFormat.F16)
                    .withContextLength(a.prompt() + a.gen() + 16);
            try (LlmEngine e = openIgnoringEos(model, o)) {
                int[] p = prompt(e, a.prompt());
                e.generate(GenerationRequest.of(Arrays.copyOf(p, 16), 8));
                for (int n : a.seqs()) {
                    List<Generation> gs = new ArrayList<>();
                    long t0 = System.nanoTime();
                    for (int i = 0; i < n; i++) {
                        int[] pi = p.clone();
                        pi[pi.length - 1] = 3 + i; // distinct sequences
                        gs.add(e.submit(GenerationRequest.of(pi, a.gen())));
                    }
                    long lastFirst = 0;
                    long tokens = 0;
                    long end = 0;
                    for (Generation g : gs) {
                        GenerationResult r = g.await();
                        lastFirst = Math.max(lastFirst, t0 + r.firstTokenNanos());
                        end = Math.max(end, t0 + r.totalNanos());
                        tokens += r.completionTokens();
                    }
                    System.out.printf(Locale.ROOT, "batch threads %d, %2d sequences: %6.2f tokens/s aggregate"
                                    + " (%d tokens in %.2f s incl. prefill; %.2f tokens/s after the last first token)%n",
                            t, n, tokens / ((end - t0) / 1e9), tokens, (end - t0) / 1e9,
                            (tokens - n) / ((end - lastFirst) / 1e9));
                }
            } catch (Exception ex) {
                System.out.printf(Locale.ROOT, "batch threads %d: RLX cannot run: %s%n", t, ex.getMessage());
            }
        }
    }

    /** llama.cpp in a fresh JVM: {@code llm-llamacpp MODEL THREADS PROMPT GEN OUT}, which writes its speeds to OUT. */
    static Speed llamaCpp(Path model, int threads, int prompt, int gen, Path dir) throws Exception {
        Path lib = Files.createDirectories(dir.resolve("llama-native"));
        Path result = dir.resolve("llamacpp-result.txt"); // a file: native logging shares the child's stdout
        Files.deleteIfExists(result);
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = List.of(java, "-Dde.kherud.llama.tmpdir=" + lib.toAbsolutePath(), "-cp",
                System.getProperty("java.class.path"), BenchMain.class.getName(), "llm-llamacpp", model.toString(),
                Integer.toString(threads), Integer.toString(prompt), Integer.toString(gen), result.toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        StringBuilder log = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String l; (l = r.readLine()) != null; ) {
                if (log.length() < 4000) {
                    log.append(l).append(' ');
                }
            }
        }
        if (!p.waitFor(600, TimeUnit.SECONDS) || !Files.exists(result)) {
            p.destroyForcibly();
            return Speed.failed("failed: " + log.substring(Math.max(0, log.length() - 1500)));
        }
        String[] f = Files.readString(result).trim().split(" ");
        return new Speed(Double.parseDouble(f[0]), Double.parseDouble(f[1]), Integer.parseInt(f[2]), 0, 0,
                "prompt " + f[3] + " tokens, " + f[2] + " generated");
    }

    /** The forked llama.cpp side: times the first token (prefill) and the rest (decode) of a greedy run. */
    static void llamaCppChild(String[] args) throws Exception {
        LlamaModel.setLogger(LogFormat.TEXT, (l, m) -> { });
        int threads = Integer.parseInt(args[1]);
        int prompt = Integer.parseInt(args[2]);
        int gen = Integer.parseInt(args[3]);
        ModelParameters mp = new ModelParameters().setModel(args[0]).setThreads(threads).setThreadsBatch(threads)
                .setCtxSize(prompt + gen + 16).setGpuLayers(0);
        try (LlamaModel m = new LlamaModel(mp)) {
            // the same token stream as the RLX side: the corpus repeated, decoded back to text
            int[] ids = m.encode(SyntheticVocab.DEFAULT_CORPUS.repeat(1 + prompt / 8));
            String text = m.decode(Arrays.copyOf(ids, prompt - 1)); // BOS comes from the vocabulary's rule
            run(m, text, 8); // warm-up
            long[] t = run(m, text, gen);
            int promptTokens = m.encode(text).length + 1;
            double prefill = promptTokens / ((t[0] - t[2]) / 1e9);
            double decode = (t[3] - 1) / ((t[1] - t[0]) / 1e9);
            Files.writeString(Path.of(args[4]), String.format(Locale.ROOT, "%.4f %.4f %d %d%n", prefill, decode, t[3],
                    promptTokens));
        }
        System.exit(0); // the binding's server threads outlive close()
    }

    /** Returns {first token time, end time, start time, tokens}. */
    private static long[] run(LlamaModel m, String prompt, int n) {
        InferenceParameters ip = new InferenceParameters(prompt).setNPredict(n).setTemperature(0).setIgnoreEos(true)
                .setCachePrompt(false).setSeed(1);
        long start = System.nanoTime();
        long first = 0;
        long count = 0;
        for (LlamaOutput o : m.generate(ip)) {
            if (count++ == 0) {
                first = System.nanoTime();
            }
        }
        return new long[] {first, System.nanoTime(), start, count};
    }

    static Args parse(String[] argv) {
        String size = "1b";
        List<String> types = List.of("q8_0", "q4_0");
        int[] threads = {1, 2};
        int prompt = 128;
        int gen = 128;
        int rounds = 1;
        int[] seqs = {1, 4, 16};
        boolean batch = false;
        for (int i = 0; i < argv.length; i++) {
            switch (argv[i]) {
                case "batch" -> batch = true;
                case "--size" -> size = argv[++i];
                case "--types" -> types = List.of(argv[++i].split(","));
                case "--threads" -> threads = ints(argv[++i]);
                case "--prompt" -> prompt = Integer.parseInt(argv[++i]);
                case "--gen" -> gen = Integer.parseInt(argv[++i]);
                case "--rounds" -> rounds = Integer.parseInt(argv[++i]);
                case "--seqs" -> seqs = ints(argv[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + argv[i] + "; see LlmBench's"
                        + " javadoc");
            }
        }
        return new Args(size, types, threads, prompt, gen, rounds, seqs, batch);
    }

    private static int[] ints(String csv) {
        return Arrays.stream(csv.split(",")).mapToInt(Integer::parseInt).toArray();
    }
}
