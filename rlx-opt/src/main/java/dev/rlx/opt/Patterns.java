package dev.rlx.opt;

import dev.rlx.ir.BinaryKind;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.ir.Value;

/** Small node tests the pattern-matching fusion passes share. */
final class Patterns {
    private Patterns() {}

    static boolean isBinary(Node n, BinaryKind k) {
        return n != null && n.op() instanceof Op.Binary b && b.op() == k;
    }

    /** The value of a one-element floating constant, or null. */
    static Float scalarConstant(Value v) {
        if (v.node().op() instanceof Op.Constant c && c.value().shape().elementCount() == 1 && v.dtype().isFloat()) {
            return (float) c.value().getDouble(0);
        }
        return null;
    }
}
