package dev.rlx.runtime.random;

/**
 * {@code std::minstd_rand0}, the Lewis–Goodman–Miller "minimal standard" generator
 * {@code x ← 16807·x mod (2³¹−1)}, which is libstdc++'s {@code std::default_random_engine} (and so what
 * ONNX Runtime's random ops use on Linux). Values lie in {@code [1, 2³¹−2]}.
 */
public final class MinStdRand0 implements UniformRandomBitGenerator {
    private static final long M = 2147483647L;
    private static final long A = 16807L;
    private long x;

    /** Seeded as {@code std::minstd_rand0(seed)} with {@code seed} read as unsigned 32 bits. */
    public MinStdRand0(int seed) {
        seed(seed);
    }

    /** {@code seed(s)}: {@code x = s mod m}, replaced by 1 when that is 0. */
    public void seed(int seed) {
        long s = (seed & 0xFFFFFFFFL) % M;
        x = s == 0 ? 1 : s;
    }

    @Override
    public long next() {
        x = x * A % M;
        return x;
    }

    @Override
    public long min() {
        return 1;
    }

    @Override
    public long max() {
        return M - 1;
    }
}
