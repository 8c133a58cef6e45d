package dev.rlx.hw;

import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import jdk.incubator.vector.FloatVector;

/** Which SIMD features a host has, named as Linux's {@code /proc/cpuinfo} spells them, and the Vector API's width. */
final class SimdFeatures {
    /** The features worth reporting for ML kernels, in print order: x86 first, then Arm. */
    static final List<String> KNOWN = List.of(
            "sse2", "ssse3", "sse4_1", "sse4_2", "avx", "avx2", "fma", "f16c", "avx_vnni",
            "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl", "avx512_vnni", "avx512_bf16", "avx512_fp16",
            "avx512vbmi", "amx_tile", "amx_bf16", "amx_int8",
            "neon", "asimd", "asimdhp", "asimddp", "fphp", "bf16", "i8mm", "sve", "sve2", "sme");

    private SimdFeatures() {}

    /** The known features among {@code flags} (case-insensitive), in {@link #KNOWN} order. */
    static List<String> select(Collection<String> flags) {
        Set<String> lower = flags.stream().map(f -> f.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
        return KNOWN.stream().filter(lower::contains).toList();
    }

    /**
     * Bits of the Vector API's preferred float species (what rlx-cpu's kernels use), or 0 when the
     * {@code jdk.incubator.vector} module is not in the JVM (it must be added with {@code --add-modules}).
     */
    static int preferredVectorBits() {
        try {
            return FloatVector.SPECIES_PREFERRED.vectorBitSize();
        } catch (LinkageError e) {
            return 0;
        }
    }
}
