package dev.rlx.llm.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Blocks beyond the RAM budget in a mapped spill file, and typed errors for files that cannot be used. */
class SpillTest {
    private static final int KV_HEADS = 2;
    private static final int HEAD_DIM = 32;
    private static final int ROW = KV_HEADS * HEAD_DIM;

    @TempDir
    Path dir;

    private static KvCacheConfig config(int headDim, long ramBudgetBytes, Path file, KvCacheConfig.Spill.Mode mode) {
        return new KvCacheConfig(2, KV_HEADS, headDim, 16, 64, List.of(KvStorage.Q8_0, KvStorage.F16), null)
                .withSpill(new KvCacheConfig.Spill(file, ramBudgetBytes, mode));
    }

    private KvCacheConfig config(long ramBudgetBytes) {
        return config(HEAD_DIM, ramBudgetBytes, dir.resolve("kv.spill"), KvCacheConfig.Spill.Mode.CREATE);
    }

    /**
     * {@code ramPool}, {@code spillPool} and {@code slotTable} are what a graph's paged attention reads: every token's
     * head rows decode, at the slot the table names and the offset the block layout gives, to what {@code read}
     * returns, for blocks in RAM and spilled ones alike.
     */
    @Test
    void slotTableAndPools_locateEveryTokensRows() {
        long budget = 3 * config(0).blockBytesAllLayers();
        KvCacheConfig cfg = config(budget);
        Random r = new Random(3);
        int tokens = 100; // 7 blocks of 16: 3 in RAM, 4 spilled
        int tpb = cfg.tokensPerBlock();
        try (PagedKvCache c = new PagedKvCache(cfg)) {
            KvSequence s = c.newSequence(1);
            c.append(s, tokens);
            for (int l = 0; l < 2; l++) {
                float[] k = new float[tokens * ROW];
                float[] v = new float[tokens * ROW];
                for (int i = 0; i < k.length; i++) {
                    k[i] = (float) r.nextGaussian();
                    v[i] = (float) r.nextGaussian();
                }
                c.write(s, l, 0, tokens, k, 0, v, 0);
            }
            int[] table = new int[s.blockCount() + 2];
            assertEquals(7, c.slotTable(s, table, 2));
            int spilled = 0;
            for (int l = 0; l < 2; l++) {
                float[] k = new float[tokens * ROW];
                float[] v = new float[tokens * ROW];
                c.read(s, l, 0, tokens, k, 0, v, 0);
                long blockBytes = cfg.blockBytes(l);
                long rowBytes = cfg.headRowBytes(l);
                assertEquals(cfg.ramBlocks() * blockBytes, c.ramPool(l).byteSize());
                assertEquals(cfg.fileBlocks() * blockBytes, c.spillPool(l).byteSize());
                float[] row = new float[HEAD_DIM];
                for (int t = 0; t < tokens; t++) {
                    int e = table[2 + t / tpb];
                    var seg = e >= 0 ? c.ramPool(l) : c.spillPool(l);
                    for (int kh = 0; kh < KV_HEADS; kh++) {
                        long at = (e >= 0 ? e : -e - 1) * blockBytes + (kh * tpb + t % tpb) * rowBytes;
                        for (int half = 0; half < 2; half++) {
                            cfg.storage(l).format().decode(seg, at + half * blockBytes / 2, row, 0, HEAD_DIM);
                            float[] want = half == 0 ? k : v;
                            assertArrayEquals(java.util.Arrays.copyOfRange(want, t * ROW + kh * HEAD_DIM,
                                    t * ROW + (kh + 1) * HEAD_DIM), row, "layer " + l + " token " + t + " head " + kh);
                        }
                    }
                    spilled += l == 0 && t % tpb == 0 && e < 0 ? 1 : 0;
                }
            }
            assertEquals(4, spilled);
            assertTrue(c.ramPool(0).isReadOnly() && c.spillPool(1).isReadOnly());
            KvCacheException e = assertThrows(KvCacheException.class, () -> c.slotTable(s, new int[8], 2));
            assertEquals(KvCacheException.Reason.BAD_ARGUMENT, e.reason());
            assertEquals(KvCacheException.Reason.OUT_OF_RANGE,
                    assertThrows(KvCacheException.class, () -> c.ramPool(2)).reason());
        }
    }

    @Test
    void noSpill_spillPoolIsEmpty() {
        try (PagedKvCache c = new PagedKvCache(KvCacheConfig.of(1, KV_HEADS, HEAD_DIM, 4, 8, KvStorage.F32))) {
            assertEquals(0, c.spillPool(0).byteSize());
            assertEquals(8 * c.config().blockBytes(0), c.ramPool(0).byteSize());
            KvSequence s = c.newSequence(1);
            c.append(s, 9);
            int[] table = new int[3];
            assertEquals(3, c.slotTable(s, table, 0));
            for (int e : table) {
                assertTrue(e >= 0 && e < 8, "RAM slot " + e);
            }
        }
    }

    @Test
    void decode_moreHistoryThanRamBudget_readsBackAndAttends() {
        KvCacheConfig cfg = config(0);
        long budget = 4 * cfg.blockBytesAllLayers(); // four blocks of 16 tokens in RAM
        cfg = config(budget);
        Random r = new Random(1);
        int tokens = 800;
        float[][] ks = new float[2][tokens * ROW];
        float[][] vs = new float[2][tokens * ROW];
        try (PagedKvCache c = new PagedKvCache(cfg)) {
            KvSequence s = c.newSequence(1);
            for (int t = 0; t < tokens; t++) { // one decode step at a time, every layer
                c.append(s, 1);
                for (int l = 0; l < 2; l++) {
                    for (int i = 0; i < ROW; i++) {
                        ks[l][t * ROW + i] = (float) r.nextGaussian();
                        vs[l][t * ROW + i] = (float) r.nextGaussian();
                    }
                    c.write(s, l, t, 1, ks[l], t * ROW, vs[l], t * ROW);
                }
            }
            KvMemoryStats m = c.memoryStats();
            assertEquals(50, m.usedBlocks());
            assertEquals(4, m.ramResidentBlocks());
            assertEquals(46, m.spilledBlocks());
            assertEquals(46, m.demotions()); // each spilled block was moved once
            assertEquals(budget, m.ramPoolBytes());
            long held = m.filledTokenSlots() * (cfg.bytesPerToken(0) + cfg.bytesPerToken(1));
            assertTrue(held > 10 * budget, "holds " + held + " bytes of history with a RAM budget of " + budget);
            assertTrue(Files.exists(cfg.spill().file()));

            for (int l = 0; l < 2; l++) {
                float[] k = new float[tokens * ROW];
                float[] v = new float[tokens * ROW];
                c.read(s, l, 0, tokens, k, 0, v, 0);
                assertArrayEquals(PagedKvCacheTest.stored(cfg.storage(l), ks[l]), k, "layer " + l);
                assertArrayEquals(PagedKvCacheTest.stored(cfg.storage(l), vs[l]), v, "layer " + l);
                float[] q = new float[4 * HEAD_DIM];
                for (int i = 0; i < q.length; i++) {
                    q[i] = (float) r.nextGaussian();
                }
                float[] out = new float[q.length];
                try (PagedAttention a = new PagedAttention(c, 4, 0.125f, 1)) {
                    a.forward(l, new KvSequence[] {s}, new int[] {1}, 1, q, out);
                }
                double[] want = AttentionReference.attend(q, 0, k, v, 1, tokens, 4, KV_HEADS, HEAD_DIM, 0.125);
                for (int i = 0; i < want.length; i++) {
                    assertEquals(want[i], out[i], 1e-5, "layer " + l + " element " + i);
                }
            }
            c.free(s);
            assertEquals(0, c.memoryStats().usedBlocks());
            c.audit();
        }
    }

    @Test
    void zeroRamBudget_everyBlockInFile() {
        Random r = new Random(2);
        try (PagedKvCache c = new PagedKvCache(config(0))) {
            KvSequence s = c.newSequence(1);
            float[] k = new float[40 * ROW];
            for (int i = 0; i < k.length; i++) {
                k[i] = (float) r.nextGaussian();
            }
            c.append(s, 40);
            c.write(s, 1, 0, 40, k, 0, k, 0);
            KvSequence f = c.fork(s, 2);
            c.append(f, 1); // copy-on-write inside the file
            float[] back = new float[40 * ROW];
            c.read(f, 1, 0, 40, back, 0, new float[40 * ROW], 0);
            assertArrayEquals(PagedKvCacheTest.stored(KvStorage.F16, k), back);
            assertEquals(0, c.memoryStats().ramResidentBlocks());
            assertEquals(4, c.memoryStats().spilledBlocks());
            c.audit();
        }
    }

    /* ---- files that cannot be used ---- */

    @Test
    void open_missingFile_throwsSpillMissing() {
        Path file = dir.resolve("absent.spill");
        KvCacheException e = assertThrows(KvCacheException.class,
                () -> new PagedKvCache(config(HEAD_DIM, 0, file, KvCacheConfig.Spill.Mode.OPEN)));
        assertEquals(KvCacheException.Reason.SPILL_MISSING, e.reason());
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
    }

    @Test
    void open_truncatedFile_throwsSpillTruncated() throws IOException {
        Path file = dir.resolve("kv.spill");
        new PagedKvCache(config(HEAD_DIM, 0, file, KvCacheConfig.Spill.Mode.CREATE)).close();
        long size = Files.size(file);
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(size - 1);
        }
        KvCacheException e = assertThrows(KvCacheException.class,
                () -> new PagedKvCache(config(HEAD_DIM, 0, file, KvCacheConfig.Spill.Mode.OPEN)));
        assertEquals(KvCacheException.Reason.SPILL_TRUNCATED, e.reason());
        assertTrue(e.getMessage().contains("is " + (size - 1) + " bytes but its header needs " + size), e.getMessage());
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(20); // magic intact, header cut
        }
        assertEquals(KvCacheException.Reason.SPILL_TRUNCATED, assertThrows(KvCacheException.class,
                () -> new PagedKvCache(config(HEAD_DIM, 0, file, KvCacheConfig.Spill.Mode.OPEN))).reason());
    }

    @Test
    void open_foreignFile_throwsSpillForeign() throws IOException {
        Path file = dir.resolve("notes.txt");
        Files.writeString(file, "not a spill file, but somebody's data".repeat(200));
        for (KvCacheConfig.Spill.Mode mode : KvCacheConfig.Spill.Mode.values()) {
            KvCacheException e = assertThrows(KvCacheException.class,
                    () -> new PagedKvCache(config(HEAD_DIM, 0, file, mode)));
            assertEquals(KvCacheException.Reason.SPILL_FOREIGN, e.reason(), mode.name());
            assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        }
        assertTrue(Files.readString(file).startsWith("not a spill file"), "CREATE must not overwrite it");
        Files.write(file, new byte[3]);
        assertEquals(KvCacheException.Reason.SPILL_FOREIGN, assertThrows(KvCacheException.class,
                () -> new PagedKvCache(config(HEAD_DIM, 0, file, KvCacheConfig.Spill.Mode.OPEN))).reason());
    }

    @Test
    void open_unsupportedVersion_throwsSpillForeign() throws IOException {
        Path file = dir.resolve("kv.spill");
        new PagedKvCache(config(HEAD_DIM, 0, file, KvCacheConfig.Spill.Mode.CREATE)).close();
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(8);
            f.write(new byte[] {7, 0, 0, 0});
        }
        KvCacheException e = assertThrows(KvCacheException.class,
                () -> new PagedKvCache(config(HEAD_DIM, 0, file, KvCacheConfig.Spill.Mode.OPEN)));
        assertEquals(KvCacheException.Reason.SPILL_FOREIGN, e.reason());
        assertTrue(e.getMessage().contains("version 7"), e.getMessage());
    }

    @Test
    void open_otherGeometry_throwsSpillMismatch() {
        Path file = dir.resolve("kv.spill");
        new PagedKvCache(config(HEAD_DIM, 0, file, KvCacheConfig.Spill.Mode.CREATE)).close();
        KvCacheException e = assertThrows(KvCacheException.class,
                () -> new PagedKvCache(config(64, 0, file, KvCacheConfig.Spill.Mode.OPEN)));
        assertEquals(KvCacheException.Reason.SPILL_MISMATCH, e.reason());
        assertTrue(e.getMessage().contains("headDim 32 at offset 24 but this cache needs 64"), e.getMessage());

        KvCacheConfig otherStorage = config(HEAD_DIM, 0, file, KvCacheConfig.Spill.Mode.OPEN)
                .withLayerStorage(List.of(KvStorage.F16, KvStorage.Q8_0)); // same bytes in all, other layout
        assertEquals(KvCacheException.Reason.SPILL_MISMATCH,
                assertThrows(KvCacheException.class, () -> new PagedKvCache(otherStorage)).reason());
    }

    @Test
    void open_matchingFile_isUsed() throws IOException {
        Path file = dir.resolve("kv.spill");
        new PagedKvCache(config(HEAD_DIM, 0, file, KvCacheConfig.Spill.Mode.CREATE)).close();
        try (PagedKvCache c = new PagedKvCache(config(HEAD_DIM, 0, file, KvCacheConfig.Spill.Mode.OPEN))) {
            KvSequence s = c.newSequence(1);
            c.append(s, 3);
            float[] k = {1, 2, 3};
            float[] x = new float[3 * ROW];
            System.arraycopy(k, 0, x, 0, 3);
            c.write(s, 1, 0, 3, x, 0, x, 0);
            float[] back = new float[3 * ROW];
            c.read(s, 1, 0, 3, back, 0, new float[3 * ROW], 0);
            assertArrayEquals(x, back);
        }
        // CREATE replaces an existing spill file, whatever geometry it had.
        new PagedKvCache(config(64, 0, file, KvCacheConfig.Spill.Mode.CREATE)).close();
        assertTrue(new String(Files.readAllBytes(file), 0, 8, StandardCharsets.US_ASCII).equals("RLXKVSPL"));
    }

    @Test
    void open_fileInUseByAnotherCache_throwsSpillIo() {
        KvCacheConfig cfg = config(0);
        try (PagedKvCache c = new PagedKvCache(cfg)) {
            c.newSequence(1);
            KvCacheException e = assertThrows(KvCacheException.class, () -> new PagedKvCache(cfg));
            assertEquals(KvCacheException.Reason.SPILL_IO, e.reason());
            assertTrue(e.getMessage().contains("locked"), e.getMessage());
        }
        new PagedKvCache(cfg).close(); // closing released the lock
    }
}
