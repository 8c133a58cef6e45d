package dev.rlx.runtime.random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** libstdc++'s generate_canonical and normal_distribution on fixed engine outputs. */
class StdDistributionsTest {

    /** An engine that replays given values, with the range of minstd_rand0 or mt19937. */
    private record Replay(long[] values, long min, long max, int[] pos) implements UniformRandomBitGenerator {
        Replay(long min, long max, long... values) {
            this(values, min, max, new int[1]);
        }

        @Override
        public long next() {
            return values[pos[0]++];
        }
    }

    @Test
    void canonicalFloat_minstdUsesOneDrawOverTwoToThe31() {
        // R = 2^31 - 2 rounds to 2^31 in float; (g - 1) / 2^31.
        assertEquals(0f, StdDistributions.canonicalFloat(new Replay(1, 2147483646L, 1)));
        assertEquals(0.5f, StdDistributions.canonicalFloat(new Replay(1, 2147483646L, (1L << 30) + 1)));
        // g - 1 = 2^31 - 3 rounds to 2^31 in float, giving 1, which is replaced by the float below 1.
        assertEquals(Math.nextDown(1f), StdDistributions.canonicalFloat(new Replay(1, 2147483646L, 2147483646L)));
    }

    @Test
    void canonicalDouble_minstdUsesTwoDraws() {
        double r = 2147483646.0;
        Replay g = new Replay(1, 2147483646L, 11, 3);
        assertEquals((10 + 2 * r) / (r * r), StdDistributions.canonicalDouble(g));
        assertEquals(2, g.pos()[0]);
    }

    @Test
    void canonical_mt19937UsesOneDrawForFloatAndTwoForDouble() {
        assertEquals(0.25f, StdDistributions.canonicalFloat(new Replay(0, 0xFFFFFFFFL, 1L << 30)));
        // (g1 + g2 * 2^32) / 2^64
        assertEquals((1.0 + 0x1p32 * 0x40000000L) / 0x1p64,
                StdDistributions.canonicalDouble(new Replay(0, 0xFFFFFFFFL, 1, 1L << 30)));
    }

    @Test
    void uniformFloat_scalesThenShifts() {
        assertEquals(0.5f * 3f + -1f, StdDistributions.uniformFloat(new Replay(1, 2147483646L, (1L << 30) + 1), -1f, 2f));
    }

    @Test
    void normal_polarMethodReturnsYThenTheKeptX() {
        // u = 0.75 and 0.5 give x = 0.5, y = 0; r2 = 0.25, f = sqrt(-2 ln 0.25 / 0.25) = sqrt(8 ln 4).
        long half = (1L << 30) + 1;
        long threeQuarters = 3L * (1L << 29) + 1;
        Replay g = new Replay(1, 2147483646L, threeQuarters, half);
        StdNormal n = new StdNormal();
        float f = (float) Math.sqrt(-2 * GlibcLogf.logf(0.25f) / 0.25f);
        assertEquals(0f * 2f + 1f, n.nextFloat(g, 1f, 2f));
        assertEquals(0.5f * f * 2f + 1f, n.nextFloat(g, 1f, 2f));
        assertEquals(2, g.pos()[0], "the second value comes from the cache");
        assertEquals(Math.sqrt(8 * Math.log(4)) * 0.5, 0.5 * f, 1e-6);
    }

    @Test
    void normal_rejectsPointsOutsideTheUnitDisc() {
        // u = 0.999.. gives x and y close to 1, r2 > 1; then u = 0.5, 0.5 gives r2 = 0: both pairs are discarded.
        long top = 2147483646L;
        long half = (1L << 30) + 1;
        long threeQuarters = 3L * (1L << 29) + 1;
        Replay g = new Replay(1, 2147483646L, top, top, half, half, threeQuarters, half);
        float v = new StdNormal().nextFloat(g, 0f, 1f);
        assertEquals(6, g.pos()[0]);
        assertEquals(0f, v); // y = 0 in the accepted pair
        assertTrue(Float.isFinite(v));
    }
}
