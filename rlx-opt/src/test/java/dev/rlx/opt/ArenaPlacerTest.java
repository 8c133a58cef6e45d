package dev.rlx.opt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ArenaPlacerTest {
    /** The full scan the placer replaced: every placed buffer is tested against the new one. */
    private static long[] bruteForce(long[] size, int[] birth, int[] death, int alignment) {
        long[] off = new long[size.length];
        for (int b = 0; b < size.length; b++) {
            if (size[b] == 0) {
                continue;
            }
            List<long[]> conflicts = new ArrayList<>();
            for (int p = 0; p < b; p++) {
                if (size[p] > 0 && birth[p] <= death[b] && birth[b] <= death[p]) {
                    conflicts.add(new long[] {off[p], off[p] + size[p]});
                }
            }
            conflicts.sort(Comparator.comparingLong(c -> c[0]));
            long candidate = 0;
            for (long[] c : conflicts) {
                if (candidate + size[b] <= c[0]) {
                    break;
                }
                candidate = Math.max(candidate, MemoryPlanner.align(c[1], alignment));
            }
            off[b] = candidate;
        }
        return off;
    }

    @Test
    void place_randomBuffers_sameOffsetsAsTheFullScan() {
        Random r = new Random(21);
        for (int trial = 0; trial < 200; trial++) {
            int n = 1 + r.nextInt(300);
            int steps = 1 + r.nextInt(400);
            long[] size = new long[n];
            int[] birth = new int[n];
            int[] death = new int[n];
            for (int i = 0; i < n; i++) {
                size[i] = r.nextInt(10) == 0 ? 0 : 1 + r.nextInt(5000);
                birth[i] = r.nextInt(steps);
                death[i] = r.nextInt(4) == 0 ? steps : Math.min(steps, birth[i] + r.nextInt(1 + r.nextInt(steps)));
            }
            int alignment = 1 << r.nextInt(7);
            ArenaPlacer placer = new ArenaPlacer(steps, alignment);
            long[] got = new long[n];
            for (int i = 0; i < n; i++) {
                got[i] = placer.place(size[i], birth[i], death[i]);
            }
            assertArrayEquals(bruteForce(size, birth, death, alignment), got, "trial " + trial);
        }
    }

    /** Placement work on a chain of {@code n} short-lived buffers plus a whole-run input and output. */
    private static long chainWork(int n) {
        ArenaPlacer placer = new ArenaPlacer(n + 1, 64);
        placer.place(4096, 0, n + 1);
        placer.place(4096, 0, n + 1);
        for (int i = 1; i <= n; i++) {
            placer.place(4096, i, i + 1);
        }
        return placer.work();
    }

    @Test
    void place_longChain_workGrowsNearLinearly() {
        long small = chainWork(2_000);
        long large = chainWork(32_000);
        // 16x the buffers: a full scan does 256x the work; n log n is about 21x.
        assertTrue(large < 25 * small, "work " + small + " -> " + large);
        assertTrue(large < 100L * 32_000, "work " + large + " for 32,000 buffers");
    }

    @Test
    void plan_longMatmulReluChain_staysAtTheChainPeak() {
        Graph g = new Graph("chain");
        Shape s = Shape.of(DType.F32, 8, 16);
        Value x = g.input("x", s);
        Value w = g.param("w", Shape.of(DType.F32, 16, 16));
        Value h = x;
        for (int i = 0; i < 5_000; i++) {
            h = g.relu(g.matmul(h, w));
        }
        g.setOutputs(h);
        MemoryPlan plan = MemoryPlanner.plan(g, 64);
        // input and output live the whole run; at each matmul its operand and result are live too.
        assertTrue(plan.arenaBytes() <= 4 * s.byteSize(), plan.arenaBytes() + " bytes");
    }
}
