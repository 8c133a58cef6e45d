package dev.rlx.runtime;

import dev.rlx.ir.Attrs;
import dev.rlx.ir.Shape;
import java.util.List;

/** Output shapes of a custom op for given operand shapes and attributes; throws to reject operands. */
@FunctionalInterface
public interface ShapeFunction {
    List<Shape> outputShapes(List<Shape> inputs, Attrs attrs);
}
