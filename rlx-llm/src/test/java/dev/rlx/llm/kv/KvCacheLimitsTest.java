package dev.rlx.llm.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.limits.LimitExceededException;
import dev.rlx.ir.limits.Limits;
import org.junit.jupiter.api.Test;

/** A cache too large for its limit is refused before anything is allocated; size hints never allocate past the pool. */
class KvCacheLimitsTest {
    @Test
    void construct_hugeBlockCount_isRefusedBeforeAllocating() {
        // 2^31-1 blocks of 16 tokens x 8 heads x 128 f32 values: 128 TiB, far over half of any test machine.
        KvCacheConfig huge = KvCacheConfig.of(1, 8, 128, 16, Integer.MAX_VALUE, KvStorage.F32);
        LimitExceededException e = assertThrows(LimitExceededException.class, () -> new PagedKvCache(huge));
        assertEquals(Limits.Kind.KV_CACHE_BYTES, e.kind());
        assertTrue(e.asked() > 100L << 40, e.getMessage());
        assertTrue(e.getMessage().contains("2147483647 blocks"), e.getMessage());
    }

    @Test
    void construct_poolOverAnExplicitLimit_isRefused() {
        KvCacheConfig c = KvCacheConfig.of(2, 2, 32, 16, 64, KvStorage.F32); // 64 blocks x 16 KiB = 1 MiB
        Limits small = Limits.defaults().toBuilder().kvCacheBytes(256 << 10).build();
        LimitExceededException e = assertThrows(LimitExceededException.class, () -> new PagedKvCache(c, small));
        assertEquals(PagedKvCache.ramBytes(c), e.asked());
        assertEquals(64L * c.blockBytesAllLayers() + 32L * 64, e.asked());
        try (PagedKvCache ok = new PagedKvCache(c, small.toBuilder().kvCacheBytes(4 << 20).build())) {
            assertEquals(64, ok.config().numBlocks());
        }
    }

    @Test
    void newSequence_expectingIntMaxTokens_allocatesNoMoreThanThePool() {
        try (PagedKvCache cache = new PagedKvCache(KvCacheConfig.of(1, 1, 32, 1, 8, KvStorage.F32))) {
            KvSequence s = cache.newSequence(1, Integer.MAX_VALUE - 1); // one token per block: was new int[2^31-2]
            assertEquals(8, s.table.length);
            cache.append(s, 8);
            assertEquals(8, s.length);
            assertThrows(KvCacheException.class, () -> cache.append(s, 1)); // the pool is full: typed
        }
        try (PagedKvCache cache = new PagedKvCache(KvCacheConfig.of(1, 1, 32, 16, 8, KvStorage.F32))) {
            KvSequence t = cache.newSequence(2, Integer.MAX_VALUE - 1); // (n + 15) / 16 used to overflow an int
            assertEquals(8, t.table.length);
        }
    }
}
