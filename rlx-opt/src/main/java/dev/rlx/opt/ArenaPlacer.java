package dev.rlx.opt;

import java.util.Arrays;

/**
 * First-fit placement of arena buffers, one at a time in the caller's order: each goes at the lowest aligned
 * offset that overlaps no placed buffer whose lifetime intersects its own.
 *
 * <p>Why an index: scanning every placed buffer for each new one made planning quadratic in the graph size (a
 * 40,000-node chain took minutes). Placed lifetimes sit in a segment tree over the schedule (each interval in its
 * O(log n) canonical nodes, subtrees that hold nothing are skipped), so finding the buffers alive at the same
 * time costs O((k + 1) log n) for k such buffers. The offsets chosen are exactly those of the full scan.
 */
final class ArenaPlacer {
    private final int alignment;
    private final int leaves; // a power of two covering steps [0, leaves)
    private final int[][] held; // tree node -> ids of the buffers stored there
    private final int[] heldCount;
    private final int[] subtree; // buffers stored in a node's subtree
    private long[] start = new long[16]; // buffer id -> [start, end) offsets
    private long[] end = new long[16];
    private int[] seen = new int[16]; // buffer id -> last query that reported it (dedupe)
    private int count;
    private int query;
    private long work; // tree nodes visited plus conflicts examined
    private long[] conflictStart = new long[16];
    private long[] conflictEnd = new long[16];
    private int conflicts;

    /** A placer for lifetimes within steps {@code [0, lastStep]}. */
    ArenaPlacer(int lastStep, int alignment) {
        this.alignment = alignment;
        int l = 1;
        while (l < lastStep + 1) {
            l <<= 1;
        }
        leaves = l;
        held = new int[2 * l][];
        heldCount = new int[2 * l];
        subtree = new int[2 * l];
    }

    /** Places a buffer of {@code size} bytes alive over steps {@code [birth, death]}; returns its offset. */
    long place(long size, int birth, int death) {
        if (size == 0) {
            return 0; // takes no bytes: conflicts with nothing
        }
        conflicts = 0;
        query++;
        collect(1, 0, leaves - 1, birth, death);
        sortConflicts();
        long candidate = 0;
        for (int i = 0; i < conflicts; i++) {
            work++;
            if (candidate + size <= conflictStart[i]) {
                break; // fits in the gap before this buffer
            }
            candidate = Math.max(candidate, MemoryPlanner.align(conflictEnd[i], alignment));
        }
        add(candidate, candidate + size, birth, death);
        return candidate;
    }

    /** Tree nodes visited and conflicts examined so far: what placement cost (tests check it grows linearly). */
    long work() {
        return work;
    }

    private void add(long s, long e, int birth, int death) {
        if (count == start.length) {
            start = Arrays.copyOf(start, 2 * count);
            end = Arrays.copyOf(end, 2 * count);
            seen = Arrays.copyOf(seen, 2 * count);
        }
        int id = count++;
        start[id] = s;
        end[id] = e;
        insert(1, 0, leaves - 1, birth, death, id);
    }

    private void insert(int node, int lo, int hi, int from, int to, int id) {
        subtree[node]++;
        if (from <= lo && hi <= to) {
            int[] h = held[node];
            if (h == null) {
                h = held[node] = new int[2];
            } else if (heldCount[node] == h.length) {
                h = held[node] = Arrays.copyOf(h, 2 * h.length);
            }
            h[heldCount[node]++] = id;
            return;
        }
        int mid = (lo + hi) >>> 1;
        if (from <= mid) {
            insert(2 * node, lo, mid, from, to, id);
        }
        if (to > mid) {
            insert(2 * node + 1, mid + 1, hi, from, to, id);
        }
    }

    /** Reports every stored interval of a node whose range meets {@code [from, to]}: those intervals meet it too. */
    private void collect(int node, int lo, int hi, int from, int to) {
        if (subtree[node] == 0) {
            return;
        }
        work++;
        int[] h = held[node];
        for (int i = 0; i < heldCount[node]; i++) {
            int id = h[i];
            if (seen[id] != query) {
                seen[id] = query;
                addConflict(start[id], end[id]);
            }
        }
        if (node >= leaves) {
            return;
        }
        int mid = (lo + hi) >>> 1;
        if (from <= mid) {
            collect(2 * node, lo, mid, from, to);
        }
        if (to > mid) {
            collect(2 * node + 1, mid + 1, hi, from, to);
        }
    }

    private void addConflict(long s, long e) {
        if (conflicts == conflictStart.length) {
            conflictStart = Arrays.copyOf(conflictStart, 2 * conflicts);
            conflictEnd = Arrays.copyOf(conflictEnd, 2 * conflicts);
        }
        conflictStart[conflicts] = s;
        conflictEnd[conflicts] = e;
        conflicts++;
        work++;
    }

    /**
     * Sorts the conflicts by start offset. Ties may come in any order: at one start the fit test is the same
     * and the candidate takes the larger end either way.
     */
    private void sortConflicts() {
        if (conflicts < 2) {
            return;
        }
        // Sort (start, end) pairs by start: starts and ends move together.
        long[][] pairs = new long[conflicts][];
        for (int i = 0; i < conflicts; i++) {
            pairs[i] = new long[] {conflictStart[i], conflictEnd[i]};
        }
        Arrays.sort(pairs, (a, b) -> Long.compare(a[0], b[0]));
        for (int i = 0; i < conflicts; i++) {
            conflictStart[i] = pairs[i][0];
            conflictEnd[i] = pairs[i][1];
        }
    }
}
