package dev.rlx.cpu;

import dev.rlx.ir.DType;
import dev.rlx.ir.Graph;
import dev.rlx.ir.HeadLayout;
import dev.rlx.ir.Op;
import dev.rlx.ir.Shape;
import dev.rlx.ir.Value;
import dev.rlx.runtime.CompileOptions;
import dev.rlx.runtime.CompiledGraph;
import dev.rlx.runtime.Device;
import dev.rlx.runtime.Session;
import dev.rlx.testkit.Allocations;
import dev.rlx.testkit.reference.Ref;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The attention, rope, conv, conv-transpose and pool kernels allocate nothing per run (STYLE 12): measured
 * with {@code ThreadMXBean} on one thread, after warm-up so the JIT has compiled the vector loops.
 */
@Tag("allocation") // runs in its own JVM: see the surefire configuration
class NnKernelsAllocationTest {
    @Test
    void nnKernels_runAllocatesNothing() {
        for (DType dt : new DType[] {DType.F32, DType.F64}) {
            Graph g = new Graph("nn_" + dt);
            Value q = g.input("q", Shape.of(dt, 1, 8, 4, 16));
            Value k = g.input("k", Shape.of(dt, 1, 8, 2, 16));
            Value mask = g.input("mask", Shape.of(DType.BOOL, 8, 8));
            Value cos = g.input("cos", Shape.of(dt, 8, 8));
            Value sin = g.input("sin", Shape.of(dt, 8, 8));
            Value rq = g.rope(q, cos, sin, new Op.Rope(16, 16, false, HeadLayout.BSHD));
            Value att = g.attention(rq, k, k, mask, Op.Attention.of(4, 2, 16).slidingWindow(3).withSoftcap(5f));
            Value img = g.reshape(att, 1, 8, 8, 8);
            Value w = g.input("w", Shape.of(dt, 4, 8, 3, 3));
            Value c = g.conv(img, w, null, Op.Conv.of(2).withPads(1, 1));
            Value wt = g.input("wt", Shape.of(dt, 4, 2, 3, 3));
            Value ct = g.convTranspose(c, wt, null, Op.ConvTranspose.of(2).withStrides(2, 2).withPads(1, 1));
            // enough queries and no mask operand: the blocked kernel (f32), causal and plain
            Value bq = g.input("bq", Shape.of(dt, 1, 40, 2, 16));
            Value blocked = g.attention(bq, bq, bq, null, Op.Attention.of(2, 2, 16).causal());
            Value plain = g.attention(bq, bq, bq, null, Op.Attention.of(2, 2, 16));
            // 16 output channels: the im2col + GEMM conv (f32), with a bias
            Value wide = g.conv(img, g.input("w16", Shape.of(dt, 16, 8, 3, 3)), g.input("b16", Shape.of(dt, 16)),
                    Op.Conv.of(2).withPads(1, 1));
            g.setOutputs(g.pool(ct, Op.Pool.of(Op.Pool.Kind.MAX, 2, 2)),
                    g.pool(ct, Op.Pool.of(Op.Pool.Kind.AVG, 3, 3).withPads(1, 1).withCountIncludePad(false)),
                    blocked, plain, wide);
            try (Session s = new Session(Device.CPU, CompileOptions.defaults().withThreads(1));
                 CompiledGraph cg = s.compile(g)) {
                Random r = new Random(1);
                for (String in : cg.inputNames()) {
                    Shape sh = cg.inputShape(in);
                    Ref data = Ref.randomInts(r, 0, 2, sh.dims());
                    if (sh.dtype().isBool()) {
                        boolean[] b = new boolean[data.size()];
                        for (int i = 0; i < b.length; i++) {
                            b[i] = data.data()[i] != 0;
                        }
                        cg.setInput(in, b);
                    } else {
                        cg.setInput(in, Ref.random(r, -1, 1, sh.dims()).data());
                    }
                }
                Allocations.assertSteadyStateAllocatesNothing(dt + " run", cg::run, 100, 200, null);
            }
        }
    }
}
