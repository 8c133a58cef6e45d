package dev.rlx.llm.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.quant.BlockFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each storage is the block format of the same name (whose bytes {@code BlockFormatTest} in rlx-ir checks against
 * ggml), and the cache's own size checks answer with {@link KvCacheException}.
 */
class KvStorageTest {
    @ParameterizedTest
    @EnumSource(KvStorage.class)
    void format_isTheBlockFormatOfTheSameName(KvStorage s) {
        BlockFormat f = s.format();
        assertEquals(s.name(), f.name());
        assertEquals(f.blockElems(), s.blockElems());
        assertEquals(f.blockBytes(), s.blockBytes());
        assertEquals(f.quantized(), s.quantized());
        assertEquals(f.bytesFor(96), s.bytesFor(96));
    }

    @Test
    void blockBytes_matchGgml() {
        assertEquals(34, KvStorage.Q8_0.blockBytes());
        assertEquals(18, KvStorage.Q4_0.blockBytes());
        assertEquals(128 * 34 / 32, KvStorage.Q8_0.bytesFor(128));
    }

    @Test
    void bytesFor_partialBlock_isABadArgument() {
        KvCacheException e = assertThrows(KvCacheException.class, () -> KvStorage.Q4_0.bytesFor(24));
        assertEquals(KvCacheException.Reason.BAD_ARGUMENT, e.reason());
        assertTrue(e.getMessage().contains("Q4_0") && e.getMessage().contains("24"), e.getMessage());
        assertEquals(KvCacheException.Reason.BAD_ARGUMENT,
                assertThrows(KvCacheException.class, () -> KvStorage.F16.bytesFor(-2)).reason());
        assertEquals(48, KvStorage.F16.bytesFor(24));
    }
}
