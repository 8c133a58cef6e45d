package dev.rlx.vulkan;

import dev.rlx.runtime.RngOptions;

/**
 * One RngNormal/RngUniform dispatch and what its stream derives from, so {@code setRng} can rewrite the stream
 * words of its argument block (rng.comp's i[2..5]) without recompiling.
 */
record RngSite(Dispatch dispatch, String what, long nodeSeed, boolean hasSeed, long key) {
    /** Writes key, generator and advance flag of {@code o} into the dispatch's integer arguments. */
    void apply(RngOptions o) {
        if (o.generator() == RngOptions.Generator.ORT) {
            throw new VulkanException("Vulkan: " + what + " cannot draw from the ORT generator (a sequential"
                    + " minstd_rand0 stream has no shader); use RngOptions.philox or zero");
        }
        long s = o.streamSeed(nodeSeed, hasSeed, key);
        int[] ints = dispatch.ints();
        ints[2] = (int) s;
        ints[3] = (int) (s >>> 32);
        ints[4] = o.generator() == RngOptions.Generator.ZERO ? 1 : 0;
        ints[5] = o.advanceAcrossRuns() ? 1 : 0;
    }
}
