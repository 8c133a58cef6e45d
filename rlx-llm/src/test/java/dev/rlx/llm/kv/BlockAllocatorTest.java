package dev.rlx.llm.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BlockAllocatorTest {
    @Test
    void allocate_freshAllocator_ascendingIds() {
        BlockAllocator a = new BlockAllocator(4);
        assertEquals(0, a.allocate());
        assertEquals(1, a.allocate());
        assertEquals(2, a.freeCount());
        assertEquals(2, a.usedCount());
        assertEquals(1, a.refCount(0));
        a.audit();
    }

    @Test
    void allocate_exhausted_throwsOutOfBlocks() {
        BlockAllocator a = new BlockAllocator(2);
        a.allocate();
        a.allocate();
        KvCacheException e = assertThrows(KvCacheException.class, a::allocate);
        assertEquals(KvCacheException.Reason.OUT_OF_BLOCKS, e.reason());
        assertTrue(e.getMessage().contains("all 2 blocks"), e.getMessage());
    }

    @Test
    void release_lastReference_freesAndReuses() {
        BlockAllocator a = new BlockAllocator(3);
        int b = a.allocate();
        a.retain(b);
        assertEquals(2, a.refCount(b));
        assertFalse(a.release(b));
        assertEquals(2, a.freeCount());
        assertTrue(a.release(b));
        assertEquals(3, a.freeCount());
        assertEquals(b, a.allocate()); // most recently freed first
        a.audit();
    }

    @Test
    void release_freeBlock_throwsDoubleFree() {
        BlockAllocator a = new BlockAllocator(3);
        int b = a.allocate();
        a.release(b);
        KvCacheException e = assertThrows(KvCacheException.class, () -> a.release(b));
        assertEquals(KvCacheException.Reason.DOUBLE_FREE, e.reason());
        assertTrue(e.getMessage().contains("block " + b), e.getMessage());
        assertEquals(3, a.freeCount()); // the free list was not corrupted
        a.audit();
    }

    @Test
    void release_neverAllocated_throwsDoubleFree() {
        BlockAllocator a = new BlockAllocator(3);
        assertEquals(KvCacheException.Reason.DOUBLE_FREE,
                assertThrows(KvCacheException.class, () -> a.release(2)).reason());
    }

    @Test
    void anyOperation_idOutOfRange_throws() {
        BlockAllocator a = new BlockAllocator(3);
        for (int bad : new int[] {-1, 3, Integer.MAX_VALUE}) {
            KvCacheException e = assertThrows(KvCacheException.class, () -> a.release(bad));
            assertEquals(KvCacheException.Reason.BLOCK_OUT_OF_RANGE, e.reason());
            assertTrue(e.getMessage().contains("block " + bad + " is out of range [0, 3)"), e.getMessage());
            assertThrows(KvCacheException.class, () -> a.retain(bad));
            assertThrows(KvCacheException.class, () -> a.refCount(bad));
        }
    }

    @Test
    void retain_freeBlock_throwsBadState() {
        BlockAllocator a = new BlockAllocator(3);
        KvCacheException e = assertThrows(KvCacheException.class, () -> a.retain(1));
        assertEquals(KvCacheException.Reason.BAD_STATE, e.reason());
    }

    @Test
    void constructor_zeroCapacity_throws() {
        assertEquals(KvCacheException.Reason.BAD_ARGUMENT,
                assertThrows(KvCacheException.class, () -> new BlockAllocator(0)).reason());
    }
}
