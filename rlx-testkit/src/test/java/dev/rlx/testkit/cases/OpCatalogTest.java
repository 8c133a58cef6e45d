package dev.rlx.testkit.cases;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rlx.ir.DType;
import dev.rlx.ir.OpKind;
import dev.rlx.testkit.OpCase;
import dev.rlx.testkit.OpFamily;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The catalog itself: unique names, and every op kind and dtype exercised somewhere. */
class OpCatalogTest {
    private static final List<OpCase> ALL = OpCatalog.families().stream().map(OpFamily::cases).flatMap(List::stream).toList();

    @Test
    void caseNames_areUnique() {
        Set<String> seen = new HashSet<>();
        for (OpCase c : ALL) {
            assertTrue(seen.add(c.name()), "two cases are named " + c.name());
        }
    }

    @Test
    void everyOpKind_andEveryDtype_appearInSomeCase() {
        Set<OpKind> kinds = EnumSet.noneOf(OpKind.class);
        Set<DType> dtypes = EnumSet.noneOf(DType.class);
        for (OpCase c : ALL) {
            kinds.addAll(c.kinds());
            dtypes.addAll(c.dtypes());
        }
        assertEquals(EnumSet.allOf(OpKind.class), kinds);
        assertEquals(EnumSet.allOf(DType.class), dtypes);
    }
}
