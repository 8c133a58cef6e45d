package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.runtime.LoopLimitException;
import java.lang.foreign.MemorySegment;

/**
 * If, While and Scan: each body, planned by the pipeline in a region of the arena the node owns, is built once
 * into its own program; running copies values in, runs the chosen program, and copies results out. Only the taken branch runs; loops run until the condition
 * fails (or the cap), as many times as the data says.
 */
public final class ControlFlowKernels {
    private ControlFlowKernels() {}

    public static Kernel ifElse(Node n, LowerContext ctx) {
        LowerContext.SubProgram then = ctx.body(n, 0);
        LowerContext.SubProgram otherwise = ctx.body(n, 1);
        MemorySegment pred = ctx.in(n, 0).seg();
        MemorySegment[] captures = segments(n, ctx, 1, n.inputs().size(), true);
        MemorySegment[] outs = segments(n, ctx, 0, n.outputs().size(), false);
        return () -> {
            LowerContext.SubProgram p = pred.get(JAVA_BYTE, 0) != 0 ? then : otherwise;
            for (int i = 0; i < captures.length; i++) {
                copy(captures[i], p.input(i));
            }
            p.run();
            for (int i = 0; i < outs.length; i++) {
                copy(p.output(i), outs[i]);
            }
        };
    }

    public static Kernel whileLoop(Node n, LowerContext ctx) {
        Op.While op = (Op.While) n.op();
        LowerContext.SubProgram cond = ctx.body(n, 0);
        LowerContext.SubProgram body = ctx.body(n, 1);
        MemorySegment[] init = segments(n, ctx, 0, n.inputs().size(), true);
        MemorySegment[] state = segments(n, ctx, 0, n.outputs().size(), false); // the outputs hold the carries
        long guard = op.maxIterations();
        return () -> {
            for (int i = 0; i < state.length; i++) {
                copy(init[i], state[i]);
            }
            for (long iter = 0; ; iter++) {
                for (int i = 0; i < state.length; i++) {
                    copy(state[i], cond.input(i));
                }
                cond.run();
                if (cond.output(0).get(JAVA_BYTE, 0) == 0) {
                    break;
                }
                if (iter == guard) {
                    throw new LoopLimitException(n.describe(), guard);
                }
                for (int i = 0; i < state.length; i++) {
                    copy(state[i], body.input(i));
                }
                body.run();
                for (int i = 0; i < state.length; i++) {
                    copy(body.output(i), state[i]);
                }
            }
        };
    }

    public static Kernel scan(Node n, LowerContext ctx) {
        Op.Scan op = (Op.Scan) n.op();
        LowerContext.SubProgram body = ctx.body(n, 0);
        int c = op.numCarries();
        MemorySegment[] init = segments(n, ctx, 0, c, true);
        MemorySegment[] xs = segments(n, ctx, c, n.inputs().size(), true);
        MemorySegment[] carries = segments(n, ctx, 0, c, false);
        MemorySegment[] ys = segments(n, ctx, c, n.outputs().size(), false);
        long[] xStep = new long[xs.length];
        for (int j = 0; j < xs.length; j++) {
            xStep[j] = op.length() == 0 ? 0 : xs[j].byteSize() / op.length();
        }
        long[] yStep = new long[ys.length];
        for (int j = 0; j < ys.length; j++) {
            yStep[j] = op.length() == 0 ? 0 : ys[j].byteSize() / op.length();
        }
        int length = op.length();
        boolean reverse = op.reverse();
        return () -> {
            for (int i = 0; i < c; i++) {
                copy(init[i], carries[i]);
            }
            for (int s = 0; s < length; s++) {
                int t = reverse ? length - 1 - s : s;
                for (int i = 0; i < c; i++) {
                    copy(carries[i], body.input(i));
                }
                for (int j = 0; j < xs.length; j++) {
                    MemorySegment.copy(xs[j], t * xStep[j], body.input(c + j), 0, xStep[j]);
                }
                body.run();
                for (int i = 0; i < c; i++) {
                    copy(body.output(i), carries[i]);
                }
                for (int j = 0; j < ys.length; j++) {
                    MemorySegment.copy(body.output(c + j), 0, ys[j], t * yStep[j], yStep[j]);
                }
            }
        };
    }

    private static MemorySegment[] segments(Node n, LowerContext ctx, int from, int to, boolean inputs) {
        MemorySegment[] s = new MemorySegment[to - from];
        for (int i = from; i < to; i++) {
            s[i - from] = (inputs ? ctx.in(n, i) : ctx.out(n, i)).seg();
        }
        return s;
    }

    private static void copy(MemorySegment from, MemorySegment to) {
        MemorySegment.copy(from, 0, to, 0, to.byteSize());
    }
}
