package dev.rlx.llm.sample;

import java.util.concurrent.ThreadLocalRandom;

/** Seed checks and llama.cpp's "default seed means random" rule. */
final class Seeds {
    private Seeds() {}

    static long check(long seed) {
        if (seed < 0 || seed > 0xFFFFFFFFL) {
            throw new SamplingException("seed", -1, "seed must be an unsigned 32-bit value (0 to 4294967295; "
                    + "Samplers.RANDOM_SEED for a random one) but is " + seed);
        }
        return seed;
    }

    /** The engine seed: {@code seed}, or a fresh random one for {@link Samplers#RANDOM_SEED}. */
    static int resolve(long seed) {
        return seed == Samplers.RANDOM_SEED ? ThreadLocalRandom.current().nextInt() : (int) seed;
    }
}
