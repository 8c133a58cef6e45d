package dev.rlx.llm.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class PagedKvCacheTest {
    private static final int KV_HEADS = 2;
    private static final int HEAD_DIM = 32;
    private static final int ROW = KV_HEADS * HEAD_DIM; // floats per token

    private static PagedKvCache cache(int tpb, int blocks, KvStorage... perLayer) {
        return new PagedKvCache(KvCacheConfig.of(perLayer.length, KV_HEADS, HEAD_DIM, tpb, blocks, KvStorage.F32)
                .withLayerStorage(List.of(perLayer)));
    }

    /** Random rows for {@code n} tokens. */
    private static float[] rows(Random r, int n) {
        float[] x = new float[n * ROW];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) r.nextGaussian();
        }
        return x;
    }

    /** What a layer of storage {@code s} gives back for {@code x}: each head row quantised and decoded. */
    static float[] stored(KvStorage s, float[] x) {
        byte[] bytes = new byte[(int) s.bytesFor(x.length)];
        s.format().encode(x, 0, MemorySegment.ofArray(bytes), 0, x.length);
        float[] y = new float[x.length];
        s.format().decode(MemorySegment.ofArray(bytes), 0, y, 0, x.length);
        return y;
    }

    private static void assertReads(PagedKvCache c, KvSequence s, int layer, float[] k, float[] v) {
        int n = s.length();
        float[] kr = new float[n * ROW];
        float[] vr = new float[n * ROW];
        c.read(s, layer, 0, n, kr, 0, vr, 0);
        assertArrayEquals(k, kr, "keys of sequence " + s.id());
        assertArrayEquals(v, vr, "values of sequence " + s.id());
    }

    private static KvCacheException.Reason reasonOf(Executable call) {
        return assertThrows(KvCacheException.class, call).reason();
    }

    /* ---- append ---- */

    @Test
    void append_crossesBlockBoundaries_allocatesPerBlock() {
        try (PagedKvCache c = cache(4, 8, KvStorage.F32)) {
            KvSequence s = c.newSequence(1);
            assertEquals(0, c.append(s, 3));
            assertEquals(1, s.blockCount());
            assertEquals(3, c.append(s, 2));
            assertEquals(5, s.length());
            assertEquals(2, s.blockCount());
            assertEquals(1, c.blocksNeeded(s, 4)); // slots 5..7 fit, slot 8 needs block 3
            assertEquals(0, c.blocksNeeded(s, 3));
            assertEquals(5, c.append(s, 0));
            assertEquals(6, c.freeBlocks());
            assertArrayEquals(new int[] {0, 1}, s.blockTable());
            c.audit();
        }
    }

    @Test
    void append_tableOutgrowsInitialArray_keepsBlocks() {
        try (PagedKvCache c = cache(1, 40, KvStorage.F32)) {
            KvSequence s = c.newSequence(1);
            for (int i = 0; i < 33; i++) {
                c.append(s, 1);
            }
            assertEquals(33, s.blockCount());
            assertEquals(32, s.block(32));
            c.audit();
        }
    }

    @Test
    void append_outOfBlocks_throwsAndChangesNothing() {
        try (PagedKvCache c = cache(4, 2, KvStorage.F32)) {
            KvSequence s = c.newSequence(7);
            c.append(s, 5);
            KvCacheException e = assertThrows(KvCacheException.class, () -> c.append(s, 4));
            assertEquals(KvCacheException.Reason.OUT_OF_BLOCKS, e.reason());
            assertTrue(e.getMessage().contains("sequence 7 needs 1 more blocks"), e.getMessage());
            assertEquals(5, s.length());
            assertEquals(0, c.freeBlocks());
            assertTrue(c.canAppend(s, 3));
            assertFalse(c.canAppend(s, 4));
            c.audit();
        }
    }

    /* ---- write and read ---- */

    @Test
    void writeRead_f32_exactAcrossBlocks() {
        Random r = new Random(1);
        try (PagedKvCache c = cache(4, 8, KvStorage.F32)) {
            KvSequence s = c.newSequence(1);
            float[] k = rows(r, 10);
            float[] v = rows(r, 10);
            c.append(s, 10);
            c.write(s, 0, 0, 7, k, 0, v, 0); // two writes, the second starting mid-block
            c.write(s, 0, 7, 3, k, 7 * ROW, v, 7 * ROW);
            assertReads(c, s, 0, k, v);
            float[] kr = new float[2 * ROW];
            float[] vr = new float[2 * ROW];
            c.read(s, 0, 3, 2, kr, 0, vr, 0); // tokens 3 and 4 straddle blocks 0 and 1
            assertArrayEquals(java.util.Arrays.copyOfRange(k, 3 * ROW, 5 * ROW), kr);
        }
    }

    @Test
    void writeRead_storagePerLayer_eachLayerRoundTripsItsFormat() {
        Random r = new Random(2);
        KvStorage[] layers = KvStorage.values();
        try (PagedKvCache c = cache(4, 8, layers)) {
            KvSequence s = c.newSequence(1);
            c.append(s, 9);
            float[][] ks = new float[layers.length][];
            float[][] vs = new float[layers.length][];
            for (int l = 0; l < layers.length; l++) {
                ks[l] = rows(r, 9);
                vs[l] = rows(r, 9);
                c.write(s, l, 0, 9, ks[l], 0, vs[l], 0);
            }
            for (int l = 0; l < layers.length; l++) { // layers do not overwrite each other
                assertReads(c, s, l, stored(layers[l], ks[l]), stored(layers[l], vs[l]));
            }
        }
    }

    @Test
    void write_beyondLength_throwsOutOfRange() {
        try (PagedKvCache c = cache(4, 8, KvStorage.F32)) {
            KvSequence s = c.newSequence(3);
            c.append(s, 5);
            float[] x = new float[10 * ROW];
            KvCacheException e = assertThrows(KvCacheException.class, () -> c.write(s, 0, 3, 3, x, 0, x, 0));
            assertEquals(KvCacheException.Reason.OUT_OF_RANGE, e.reason());
            assertTrue(e.getMessage().contains("sequence 3 holds 5 tokens; tokens [3, 6)"), e.getMessage());
            assertEquals(KvCacheException.Reason.OUT_OF_RANGE, reasonOf(() -> c.read(s, 0, -1, 1, x, 0, x, 0)));
            assertEquals(KvCacheException.Reason.OUT_OF_RANGE, reasonOf(() -> c.read(s, 1, 0, 1, x, 0, x, 0)));
            assertEquals(KvCacheException.Reason.BAD_ARGUMENT,
                    reasonOf(() -> c.write(s, 0, 0, 5, new float[5 * ROW - 1], 0, x, 0)));
            assertEquals(KvCacheException.Reason.BAD_ARGUMENT, reasonOf(() -> c.write(s, 0, 0, 2, x, 9 * ROW, x, 0)));
            assertEquals(KvCacheException.Reason.BAD_ARGUMENT, reasonOf(() -> c.append(s, -1)));
        }
    }

    /* ---- fork and copy-on-write ---- */

    @Test
    void fork_sharesEveryBlock() {
        Random r = new Random(3);
        try (PagedKvCache c = cache(4, 8, KvStorage.F32)) {
            KvSequence p = c.newSequence(1);
            float[] k = rows(r, 10);
            float[] v = rows(r, 10);
            c.append(p, 10);
            c.write(p, 0, 0, 10, k, 0, v, 0);
            KvSequence ch = c.fork(p, 2);
            assertEquals(10, ch.length());
            assertArrayEquals(p.blockTable(), ch.blockTable());
            assertEquals(3, c.usedBlocks());
            for (int b : p.blockTable()) {
                assertEquals(2, c.refCount(b));
            }
            assertReads(c, ch, 0, k, v);
            assertEquals(3, c.memoryStats().sharedBlocks());
            c.audit();
        }
    }

    @Test
    void fork_appendIntoSharedPartialBlock_copiesItFirst() {
        Random r = new Random(4);
        try (PagedKvCache c = cache(4, 8, KvStorage.Q8_0)) {
            KvSequence p = c.newSequence(1);
            float[] k = rows(r, 6);
            float[] v = rows(r, 6);
            c.append(p, 6);
            c.write(p, 0, 0, 6, k, 0, v, 0);
            KvSequence ch = c.fork(p, 2);
            int shared = p.block(1);
            assertEquals(1, c.blocksNeeded(ch, 1)); // the copy
            float[] kc = rows(r, 1);
            float[] vc = rows(r, 1);
            assertEquals(6, c.append(ch, 1));
            c.write(ch, 0, 6, 1, kc, 0, vc, 0);
            assertEquals(p.block(0), ch.block(0)); // the full block stays shared
            assertNotEquals(shared, ch.block(1));
            assertEquals(shared, p.block(1));
            assertEquals(1, c.refCount(shared));
            assertEquals(2, c.refCount(p.block(0)));
            // The parent now owns its block alone and appends in place, with different data.
            assertEquals(0, c.blocksNeeded(p, 1));
            float[] kp = rows(r, 1);
            float[] vp = rows(r, 1);
            c.append(p, 1);
            c.write(p, 0, 6, 1, kp, 0, vp, 0);
            assertReads(c, ch, 0, stored(KvStorage.Q8_0, concat(k, kc)), stored(KvStorage.Q8_0, concat(v, vc)));
            assertReads(c, p, 0, stored(KvStorage.Q8_0, concat(k, kp)), stored(KvStorage.Q8_0, concat(v, vp)));
            c.audit();
        }
    }

    @Test
    void fork_fullLastBlock_appendNeedsNoCopy() {
        try (PagedKvCache c = cache(4, 8, KvStorage.F32)) {
            KvSequence p = c.newSequence(1);
            c.append(p, 8);
            KvSequence ch = c.fork(p, 2);
            assertEquals(1, c.blocksNeeded(ch, 1));
            c.append(ch, 1);
            assertEquals(3, c.usedBlocks()); // the two shared blocks and the child's new one
            assertEquals(2, c.refCount(p.block(1)));
            c.audit();
        }
    }

    @Test
    void fork_copyOnWriteWithNoFreeBlock_throwsOutOfBlocks() {
        try (PagedKvCache c = cache(4, 2, KvStorage.F32)) {
            KvSequence p = c.newSequence(1);
            c.append(p, 6);
            KvSequence ch = c.fork(p, 2);
            assertEquals(KvCacheException.Reason.OUT_OF_BLOCKS, reasonOf(() -> c.append(ch, 1)));
            assertEquals(6, ch.length());
            c.audit();
        }
    }

    @Test
    void write_sharedHistory_throwsSharedBlock() {
        try (PagedKvCache c = cache(4, 8, KvStorage.F32)) {
            KvSequence p = c.newSequence(1);
            c.append(p, 6);
            KvSequence ch = c.fork(p, 2);
            float[] x = new float[ROW];
            KvCacheException e = assertThrows(KvCacheException.class, () -> c.write(ch, 0, 5, 1, x, 0, x, 0));
            assertEquals(KvCacheException.Reason.SHARED_BLOCK, e.reason());
            assertTrue(e.getMessage().contains("sequence 2"), e.getMessage());
        }
    }

    /* ---- free ---- */

    @Test
    void free_sharedBlocks_stayUntilLastSharerFrees() {
        try (PagedKvCache c = cache(4, 8, KvStorage.F32)) {
            KvSequence p = c.newSequence(1);
            c.append(p, 6);
            KvSequence ch = c.fork(p, 2);
            c.append(ch, 3); // copies block 1, adds block 2
            assertEquals(4, c.usedBlocks());
            c.free(p);
            assertEquals(3, c.usedBlocks());
            assertFalse(p.isLive());
            c.audit();
            c.free(ch);
            assertEquals(0, c.usedBlocks());
            assertEquals(0, c.sequenceCount());
            c.audit();
        }
    }

    @Test
    void freedSequence_anyUse_throwsBadSequence() {
        try (PagedKvCache c = cache(4, 8, KvStorage.F32)) {
            KvSequence s = c.newSequence(9);
            c.append(s, 2);
            c.free(s);
            KvCacheException e = assertThrows(KvCacheException.class, () -> c.append(s, 1));
            assertEquals(KvCacheException.Reason.BAD_SEQUENCE, e.reason());
            assertTrue(e.getMessage().contains("sequence 9 was freed"), e.getMessage());
            assertEquals(KvCacheException.Reason.BAD_SEQUENCE, reasonOf(() -> c.free(s)));
            assertEquals(KvCacheException.Reason.BAD_SEQUENCE, reasonOf(() -> c.fork(s, 10)));
            assertEquals(KvCacheException.Reason.BAD_SEQUENCE, reasonOf(() -> c.sequence(9)));
            assertEquals(0, c.usedBlocks()); // no double free happened
            c.audit();
        }
    }

    @Test
    void newSequence_duplicateId_throwsBadSequence() {
        try (PagedKvCache c = cache(4, 8, KvStorage.F32)) {
            KvSequence s = c.newSequence(1);
            assertEquals(KvCacheException.Reason.BAD_SEQUENCE, reasonOf(() -> c.newSequence(1)));
            assertEquals(KvCacheException.Reason.BAD_SEQUENCE, reasonOf(() -> c.fork(s, 1)));
            assertEquals(s, c.sequence(1));
        }
    }

    @Test
    void sequenceOfOtherCache_throwsBadSequence() {
        try (PagedKvCache a = cache(4, 8, KvStorage.F32); PagedKvCache b = cache(4, 8, KvStorage.F32)) {
            KvSequence s = a.newSequence(1);
            assertEquals(KvCacheException.Reason.BAD_SEQUENCE, reasonOf(() -> b.append(s, 1)));
        }
    }

    @Test
    void close_thenUse_throwsBadState() {
        PagedKvCache c = cache(4, 8, KvStorage.F32);
        KvSequence s = c.newSequence(1);
        c.close();
        c.close(); // idempotent
        assertEquals(KvCacheException.Reason.BAD_STATE, reasonOf(() -> c.append(s, 1)));
        assertEquals(KvCacheException.Reason.BAD_STATE, reasonOf(() -> c.newSequence(2)));
    }

    /* ---- accounting ---- */

    @Test
    void memoryStats_countsWasteAndSharedSlotsOnce() {
        try (PagedKvCache c = cache(16, 16, KvStorage.F16)) {
            KvSequence a = c.newSequence(1);
            c.append(a, 20); // blocks 16 + 4 filled: 12 wasted
            KvSequence b = c.fork(a, 2); // shares both blocks, no new slots
            c.append(b, 1); // copies the partial block: 5 of 16 filled, 11 wasted
            KvMemoryStats m = c.memoryStats();
            assertEquals(3, m.usedBlocks());
            assertEquals(1, m.sharedBlocks());
            assertEquals(48, m.allocatedTokenSlots());
            assertEquals(16 + 4 + 5, m.filledTokenSlots());
            assertEquals(23, m.wastedTokenSlots());
            assertEquals(3, m.ramResidentBlocks());
            assertEquals(0, m.spilledBlocks());
            // F16: 2 (K, V) x 2 heads x 32 x 2 bytes = 256 bytes per token, x 16 tokens x 16 blocks.
            assertEquals(256L * 16 * 16, m.ramPoolBytes());
        }
    }

    @Test
    void config_quantizedLayerWithUntiledHeadDim_throws() {
        KvCacheException e = assertThrows(KvCacheException.class,
                () -> KvCacheConfig.of(2, 1, 24, 16, 8, KvStorage.Q4_0));
        assertEquals(KvCacheException.Reason.BAD_ARGUMENT, e.reason());
        assertTrue(e.getMessage().contains("layer 0 stores Q4_0"), e.getMessage());
        KvCacheConfig.of(2, 1, 24, 16, 8, KvStorage.F16); // fine: F16 has 1-value blocks
        assertThrows(KvCacheException.class, () -> KvCacheConfig.of(2, 1, 32, 0, 8, KvStorage.F16));
        assertThrows(KvCacheException.class,
                () -> KvCacheConfig.of(2, 1, 32, 16, 8, KvStorage.F16).withLayerStorage(List.of(KvStorage.F16)));
    }

    @Test
    void config_bytesPerToken_perStorage() {
        // headDim 128, 8 kv heads: per token and layer 2 x 8 rows of 128 values.
        int[] expected = {2 * 8 * 512, 2 * 8 * 256, 2 * 8 * 136, 2 * 8 * 88, 2 * 8 * 72};
        KvStorage[] s = KvStorage.values();
        for (int i = 0; i < s.length; i++) {
            assertEquals(expected[i], KvCacheConfig.of(1, 8, 128, 16, 4, s[i]).bytesPerToken(0), s[i].name());
        }
    }

    static float[] concat(float[] a, float[] b) {
        float[] c = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }
}
