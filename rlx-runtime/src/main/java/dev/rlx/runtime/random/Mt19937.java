package dev.rlx.runtime.random;

/**
 * {@code std::mt19937}: the 32-bit Mersenne Twister (Matsumoto and Nishimura, 1998) with the standard
 * seeding ({@code x[i] = 1812433253·(x[i−1] ^ (x[i−1] >> 30)) + i}). The samplers use it so that their draws
 * follow the same engine as llama.cpp's. Values lie in {@code [0, 2³²−1]}.
 */
public final class Mt19937 implements UniformRandomBitGenerator {
    private static final int N = 624;
    private static final int M = 397;
    private final int[] mt = new int[N];
    private int index;

    /** Seeded as {@code std::mt19937(seed)} with {@code seed} read as unsigned 32 bits. */
    public Mt19937(int seed) {
        seed(seed);
    }

    public void seed(int seed) {
        mt[0] = seed;
        for (int i = 1; i < N; i++) {
            mt[i] = 1812433253 * (mt[i - 1] ^ (mt[i - 1] >>> 30)) + i;
        }
        index = N;
    }

    @Override
    public long next() {
        if (index >= N) {
            twist();
        }
        int y = mt[index++];
        y ^= y >>> 11;
        y ^= (y << 7) & 0x9D2C5680;
        y ^= (y << 15) & 0xEFC60000;
        y ^= y >>> 18;
        return y & 0xFFFFFFFFL;
    }

    private void twist() {
        for (int i = 0; i < N; i++) {
            int y = (mt[i] & 0x80000000) | (mt[(i + 1) % N] & 0x7FFFFFFF);
            mt[i] = mt[(i + M) % N] ^ (y >>> 1) ^ ((y & 1) == 0 ? 0 : 0x9908B0DF);
        }
        index = 0;
    }

    @Override
    public long min() {
        return 0;
    }

    @Override
    public long max() {
        return 0xFFFFFFFFL;
    }
}
