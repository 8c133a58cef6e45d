package dev.rlx.testkit.reference;

import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Tensor;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.HostKernel;
import dev.rlx.runtime.HostTensor;
import dev.rlx.runtime.OpRegistry;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * A custom op runs the Java kernel registered for {@link Device#CPU} in {@link OpRegistry#global()}: its
 * definition is that kernel. Inputs are copied into host segments, outputs start zeroed.
 */
final class CustomReference {
    private CustomReference() {}

    static List<RefTensor> run(Op.Custom op, List<RefTensor> in, List<Shape> out) {
        HostKernel kernel = OpRegistry.global().kernel(op.name(), Device.CPU).orElseThrow(() -> new ReferenceException(
                "custom op '" + op.name() + "' has no kernel registered for " + Device.CPU + " (the reference runs that one)"));
        try (Arena arena = Arena.ofConfined()) {
            List<HostTensor> inputs = new ArrayList<>();
            for (RefTensor t : in) {
                MemorySegment seg = arena.allocate(Math.max(1, t.shape.byteSize())).asSlice(0, t.shape.byteSize());
                seg.copyFrom(MemorySegment.ofArray(t.toTensor().bytes()));
                inputs.add(new HostTensor(t.shape, seg));
            }
            List<HostTensor> outputs = new ArrayList<>();
            for (Shape s : out) {
                outputs.add(new HostTensor(s, arena.allocate(Math.max(1, s.byteSize())).asSlice(0, s.byteSize())));
            }
            try {
                kernel.execute(inputs, outputs, op.attrs());
            } catch (RuntimeException e) {
                throw new ReferenceException("custom op '" + op.name() + "' kernel failed: " + e, e);
            }
            List<RefTensor> result = new ArrayList<>();
            for (HostTensor h : outputs) {
                result.add(RefTensor.of(Tensor.ofBytes(h.shape(), h.data().toArray(ValueLayout.JAVA_BYTE))));
            }
            return result;
        }
    }
}
