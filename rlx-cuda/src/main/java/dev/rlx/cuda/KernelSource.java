package dev.rlx.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One variant of a kernel: a CUDA C file of the module's resources ({@code dev/rlx/cuda/kernels/<file>.cu}, one
 * per kernel family) specialised by macro definitions. {@link #text} is the full translation unit NVRTC compiles:
 * the defines, common.cuh, math.cuh, then the kernel, whose entry point is {@link #ENTRY}.
 */
record KernelSource(String file, SortedMap<String, String> macros) {
    /** The entry point's name in every compiled variant. */
    static final String ENTRY = "rlx_kernel";
    /** Every kernel family (for tests that compile them all). */
    static final List<String> FILES = List.of("elementwise", "fused", "copy", "matmul", "reduce", "gather", "axis",
            "conv", "pool", "scatter", "topk");
    private static final String ROOT = "/dev/rlx/cuda/kernels/";
    private static final Map<String, String> RESOURCES = new ConcurrentHashMap<>();

    KernelSource {
        macros = new TreeMap<>(macros);
    }

    static KernelSource of(String file, Map<String, String> macros) {
        return new KernelSource(file, new TreeMap<>(macros));
    }

    /** The translation unit compiled for this variant. */
    String text() {
        return defines(ENTRY) + resource("common.cuh") + "\n" + resource("math.cuh") + "\n#line 1 \"" + file
                + ".cu\"\n" + resource(file + ".cu");
    }

    /** The {@code #define} lines of this variant, its entry point named {@code entry}. */
    String defines(String entry) {
        StringBuilder sb = new StringBuilder("#define KERNEL_NAME ").append(entry).append('\n');
        macros.forEach((k, v) -> sb.append("#define ").append(k).append(' ').append(v).append('\n'));
        return sb.toString();
    }

    /**
     * Many variants in one translation unit, each in its own namespace with entry point {@code rlx_kernel_<i>}
     * and its macros undefined after it: for tests that check every variant compiles without paying a compiler
     * start per variant.
     */
    static String bundle(List<KernelSource> variants) {
        StringBuilder sb = new StringBuilder(resource("common.cuh")).append('\n').append(resource("math.cuh"))
                .append('\n');
        for (int i = 0; i < variants.size(); i++) {
            KernelSource v = variants.get(i);
            sb.append("namespace variant_").append(i).append(" {\n").append(v.defines(ENTRY + "_" + i))
                    .append("#line 1 \"").append(v.file).append(".cu\"\n").append(resource(v.file + ".cu"))
                    .append("\n}\n#undef KERNEL_NAME\n");
            for (String k : v.macros.keySet()) {
                int paren = k.indexOf('(');
                sb.append("#undef ").append(paren < 0 ? k : k.substring(0, paren)).append('\n');
            }
        }
        return sb.toString();
    }

    static String resource(String name) {
        return RESOURCES.computeIfAbsent(name, n -> {
            try (InputStream in = KernelSource.class.getResourceAsStream(ROOT + n)) {
                if (in == null) {
                    throw new CudaException("CUDA: kernel source " + n + " is missing from the rlx-cuda jar");
                }
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new CudaException("CUDA: cannot read kernel source " + n + ": " + e.getMessage(), e);
            }
        });
    }
}
