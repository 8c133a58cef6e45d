package dev.rlx.cpu.blas;

import java.util.Locale;
import java.util.Set;

/**
 * What OpenBLAS's kernel family (its {@code openblas_get_corename()}) can do against RLX's own kernels on this
 * CPU: a library that does not know the CPU falls back to an old family (Debian's 0.3.21 runs Prescott on a Zen 5)
 * and computes at a fraction of the speed, so neither {@code RLX_CPU_BLAS=openblas} nor a benchmark comparison
 * should trust it. The families OpenBLAS names are grouped by the widest vectors their SGEMM kernels use.
 */
public final class BlasCore {
    private BlasCore() {}

    /** AVX-512 SGEMM kernels. */
    private static final Set<String> WIDTH_512 = Set.of("skylakex", "cooperlake", "sapphirerapids", "zen4", "zen5");
    /** AVX2/FMA (or AVX) SGEMM kernels. */
    private static final Set<String> WIDTH_256 = Set.of("haswell", "zen", "excavator", "steamroller", "piledriver",
            "bulldozer", "sandybridge", "armv8sve", "neoversev1", "a64fx");

    /**
     * The vector width in bits of {@code core}'s SGEMM kernels: 512, 256, or 128 for every older or generic family
     * (Prescott, Core2, Penryn, Dunnington, Nehalem, Atom, Opteron, Barcelona, Bobcat, ... and names OpenBLAS may add
     * that this table does not know, on the safe side).
     */
    public static int vectorBits(String core) {
        String c = core == null ? "" : core.trim().toLowerCase(Locale.ROOT);
        if (WIDTH_512.contains(c)) {
            return 512;
        }
        return WIDTH_256.contains(c) ? 256 : 128;
    }

    /**
     * Null when a library running {@code core} is fit to stand in for (or be compared with) RLX's kernels running
     * {@code rlxVectorBits}-wide vectors; otherwise why not, naming the core.
     */
    public static String unfit(String core, int rlxVectorBits) {
        int bits = vectorBits(core);
        if (bits >= rlxVectorBits) {
            return null;
        }
        return String.format(Locale.ROOT, "OpenBLAS runs its %s kernels (%d-bit vectors) where RLX's own kernels use "
                + "%d-bit vectors: this OpenBLAS does not know this CPU (too old a build?)", core, bits, rlxVectorBits);
    }
}
