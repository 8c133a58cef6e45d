package dev.rlx.cpu.kernels;

import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.runtime.CompileException;
import dev.rlx.runtime.CustomOpException;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.HostKernel;
import dev.rlx.runtime.HostTensor;
import java.util.ArrayList;
import java.util.List;

/** Runs a user {@link HostKernel} registered for a custom op on the CPU. */
public final class CustomKernels {
    private CustomKernels() {}

    public static Kernel custom(Node n, LowerContext ctx) {
        Op.Custom op = (Op.Custom) n.op();
        HostKernel kernel = ctx.ops().kernel(op.name(), Device.CPU).orElseThrow(() -> new CompileException(
                "cpu: no kernel registered for custom op '" + op.name() + "' (node " + n.describe() + ")"));
        List<HostTensor> in = new ArrayList<>();
        for (int i = 0; i < n.inputs().size(); i++) {
            Buf b = ctx.in(n, i);
            in.add(new HostTensor(b.shape(), b.seg().asReadOnly()));
        }
        List<HostTensor> out = new ArrayList<>();
        for (int i = 0; i < n.outputs().size(); i++) {
            Buf b = ctx.out(n, i);
            out.add(new HostTensor(b.shape(), b.seg()));
        }
        List<HostTensor> inputs = List.copyOf(in);
        List<HostTensor> outputs = List.copyOf(out);
        return () -> {
            try {
                kernel.execute(inputs, outputs, op.attrs());
            } catch (RuntimeException e) {
                throw new CustomOpException(op.name(), "kernel failed on cpu (node " + n.describe() + "): " + e, e);
            }
        };
    }
}
