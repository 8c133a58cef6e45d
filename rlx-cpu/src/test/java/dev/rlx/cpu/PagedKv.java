package dev.rlx.cpu;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.ir.quant.BlockFormat;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.testkit.reference.NnReference;
import dev.rlx.testkit.reference.Ref;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Test data for {@link Op.PagedAttention}: a batch of sequences whose random K/V are encoded into a pool and a
 * spill pool at shuffled slots, in the op's block layout, with every byte the op must not read (unused slots, rows
 * past a sequence's length, table entries past its blocks) filled with garbage; the queries; and the float64
 * reference over the values the pools really hold (decoded back, so quantised formats are compared with their
 * own rounding).
 */
final class PagedKv {
    final Op.PagedAttention spec;
    final int[] lens;
    final int[] qlens;
    final int queryRows; // T
    final int maxBlocks;
    final byte[] pool;
    final byte[] spill;
    final int[] table; // [S, maxBlocks]
    final int[] offsets; // [S + 1]
    final float[] q; // [T, heads, headDim]
    private final double[][] keys; // per sequence: [len, kvHeads, headDim] as stored
    private final double[][] values;

    /**
     * @param padBefore      query rows before the first sequence's (padding)
     * @param padAfter       query rows after the last sequence's
     * @param spillFraction  share of the blocks placed in the spill pool
     */
    PagedKv(Op.PagedAttention spec, int[] lens, int[] qlens, int padBefore, int padAfter, double spillFraction,
            long seed) {
        this.spec = spec;
        this.lens = lens.clone();
        this.qlens = qlens.clone();
        Random r = new Random(seed);
        int tpb = spec.tokensPerBlock();
        int seqs = lens.length;
        int blocks = 0;
        int most = 0;
        for (int len : lens) {
            blocks += Math.ceilDiv(len, tpb);
            most = Math.max(most, Math.ceilDiv(len, tpb));
        }
        this.maxBlocks = most + 1; // one more entry per row than any sequence uses: never read
        // Each block goes to spill with probability spillFraction; slots are shuffled, with 2 unused ones per pool.
        List<Integer> ramSlots = new ArrayList<>();
        List<Integer> spillSlots = new ArrayList<>();
        boolean[] spilled = new boolean[blocks];
        for (int b = 0; b < blocks; b++) {
            spilled[b] = r.nextDouble() < spillFraction;
            (spilled[b] ? spillSlots : ramSlots).add((spilled[b] ? spillSlots : ramSlots).size());
        }
        int ramCount = ramSlots.size() + 2;
        int spillCount = spillFraction > 0 ? spillSlots.size() + 2 : 0;
        ramSlots.addAll(List.of(ramSlots.size(), ramSlots.size() + 1));
        spillSlots.addAll(List.of(spillSlots.size(), spillSlots.size() + 1));
        Collections.shuffle(ramSlots, r);
        Collections.shuffle(spillSlots, r);
        int blockBytes = spec.blockBytes();
        this.pool = garbage(r, (long) ramCount * blockBytes);
        this.spill = garbage(r, (long) spillCount * blockBytes);
        this.table = new int[seqs * maxBlocks];
        Arrays.fill(table, 1 << 30); // entries past a sequence's blocks name no slot
        this.keys = new double[seqs][];
        this.values = new double[seqs][];
        int kvHeads = spec.kvHeads();
        int d = spec.headDim();
        int rowBytes = spec.headRowBytes();
        int nextRam = 0;
        int nextSpill = 0;
        int block = 0;
        float[] row = new float[d];
        float[] back = new float[d];
        for (int s = 0; s < seqs; s++) {
            keys[s] = new double[lens[s] * kvHeads * d];
            values[s] = new double[lens[s] * kvHeads * d];
            for (int b = 0; b < Math.ceilDiv(lens[s], tpb); b++, block++) {
                boolean toSpill = spilled[block];
                int slot = toSpill ? spillSlots.get(nextSpill++) : ramSlots.get(nextRam++);
                table[s * maxBlocks + b] = toSpill ? -(slot + 1) : slot;
                MemorySegment seg = MemorySegment.ofArray(toSpill ? spill : pool);
                for (int t = b * tpb; t < Math.min(lens[s], (b + 1) * tpb); t++) {
                    for (int kh = 0; kh < kvHeads; kh++) {
                        long at = (long) slot * blockBytes + ((long) kh * tpb + t - b * tpb) * rowBytes;
                        int o = (t * kvHeads + kh) * d;
                        for (double[][] kv : List.of(keys, values)) {
                            long where = kv == keys ? at : at + spec.keysBytes();
                            for (int x = 0; x < d; x++) {
                                row[x] = r.nextFloat() * 2 - 1;
                            }
                            spec.storage().encode(row, 0, seg, where, d);
                            spec.storage().decode(seg, where, back, 0, d);
                            for (int x = 0; x < d; x++) {
                                kv[s][o + x] = back[x];
                            }
                        }
                    }
                }
            }
        }
        this.offsets = new int[seqs + 1];
        offsets[0] = padBefore;
        for (int s = 0; s < seqs; s++) {
            offsets[s + 1] = offsets[s] + qlens[s];
        }
        this.queryRows = offsets[seqs] + padAfter;
        this.q = new float[queryRows * spec.numHeads() * d];
        for (int i = 0; i < q.length; i++) {
            q[i] = r.nextFloat() * 2 - 1;
        }
    }

    /** Random bytes: in a block format they decode to anything, NaN and infinities included. */
    private static byte[] garbage(Random r, long n) {
        byte[] b = new byte[Math.toIntExact(n)];
        r.nextBytes(b);
        return b;
    }

    /** The graph of the op over inputs shaped for this data: q, pool, spill, table, kv_lens, query_offsets. */
    Graph graph() {
        Graph g = new Graph("paged_attention");
        int blockBytes = spec.blockBytes();
        Value out = g.pagedAttention(g.input("q", Shape.of(DType.F32, queryRows, spec.numHeads(), spec.headDim())),
                g.input("pool", Shape.of(DType.U8, pool.length / blockBytes, blockBytes)),
                g.input("spill", Shape.of(DType.U8, spill.length / blockBytes, blockBytes)),
                g.input("table", Shape.of(DType.I32, lens.length, maxBlocks)),
                g.input("kv_lens", Shape.of(DType.I32, lens.length)),
                g.input("query_offsets", Shape.of(DType.I32, lens.length + 1)), spec);
        g.setOutputs(out);
        return g;
    }

    /** Sets every input of a graph made by {@link #graph()}. */
    void feed(CompiledGraph c) {
        c.setInput("q", q);
        c.setInput("pool", MemorySegment.ofArray(pool));
        c.setInput("spill", MemorySegment.ofArray(spill));
        c.setInput("table", table);
        c.setInput("kv_lens", lens);
        c.setInput("query_offsets", offsets);
    }

    /** The expected output {@code [T, heads, headDim]}: zeros for padding rows, causal attention per sequence. */
    double[] reference() {
        int h = spec.numHeads();
        int kvh = spec.kvHeads();
        int d = spec.headDim();
        double[] want = new double[q.length];
        Op.Attention contiguous = Op.Attention.of(h, kvh, d).withScale(spec.scale()).causal();
        for (int s = 0; s < lens.length; s++) {
            int n = qlens[s];
            if (n == 0) {
                continue;
            }
            double[] qs = new double[n * h * d];
            for (int i = 0; i < qs.length; i++) {
                qs[i] = q[offsets[s] * h * d + i];
            }
            Ref o = NnReference.attention(new Ref(new int[] {1, n, h, d}, qs),
                    new Ref(new int[] {1, lens[s], kvh, d}, keys[s]), new Ref(new int[] {1, lens[s], kvh, d}, values[s]),
                    null, false, contiguous);
            System.arraycopy(o.data(), 0, want, offsets[s] * h * d, o.data().length);
        }
        return want;
    }
}
