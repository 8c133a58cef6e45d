package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.rlx.ir.BinaryKind;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The f32 vector loops of the binary ops, one method per op (see {@link UnaryF32Loops} for why), each with
 * a loop per operand layout: both contiguous, or one a broadcast scalar. Returns how many elements were
 * done; the caller finishes the tail and any other layout. Vectors never cross a call
 * that is not a Vector API method (no load helper): once a caller outgrows C2's inlining budget, which
 * depends on which layouts other code has already exercised, a vector returned by a plain call is boxed
 * on every iteration. A broadcast scalar is splatted inside its loop (the JIT hoists it); splatted by hand
 * above the loop it was boxed too.
 */
final class BinaryF32Loops {
    private BinaryF32Loops() {}

    private static final VectorSpecies<Float> F = VectorMath.F;
    private static final int W = F.length();
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    /** Whether {@link #run} has a vector loop for {@code k}. */
    static boolean has(BinaryKind k) {
        return switch (k) {
            case ADD, SUB, MUL, DIV, MAX, MIN -> true;
            default -> false;
        };
    }

    /**
     * {@code y[yo + j] = op(a[ao + j*as], b[bo + j*bs])} for the whole vectors of {@code len} when each stride
     * is 0 or 1 (not both 0); returns the count done.
     */
    static int run(BinaryKind k, MemorySegment a, long ao, long as, MemorySegment b, long bo, long bs,
                   MemorySegment y, long yo, int len) {
        int layout = as == 1 && bs == 1 ? VV : as == 0 && bs == 1 ? SV : as == 1 && bs == 0 ? VS : -1;
        if (layout < 0 || !has(k)) {
            return 0;
        }
        int n = F.loopBound(len);
        switch (k) {
            case ADD -> add(a, ao, b, bo, y, yo, n, layout);
            case SUB -> sub(a, ao, b, bo, y, yo, n, layout);
            case MUL -> mul(a, ao, b, bo, y, yo, n, layout);
            case DIV -> div(a, ao, b, bo, y, yo, n, layout);
            case MAX -> max(a, ao, b, bo, y, yo, n, layout);
            case MIN -> min(a, ao, b, bo, y, yo, n, layout);
            default -> throw new IllegalStateException(k + " has no f32 vector loop");
        }
        return n;
    }

    private static final int VV = 0;
    private static final int SV = 1;
    private static final int VS = 2;

    private static void add(MemorySegment a, long ao, MemorySegment b, long bo,
            MemorySegment y, long yo, int n, int layout) {
        if (layout == VV) {
            for (int j = 0; j < n; j += W) {
                FloatVector va = FloatVector.fromMemorySegment(F, a, (ao + j) * 4, LE);
                FloatVector vb = FloatVector.fromMemorySegment(F, b, (bo + j) * 4, LE);
                va.add(vb).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        } else if (layout == SV) {
            float sa = a.getAtIndex(JAVA_FLOAT, ao);
            for (int j = 0; j < n; j += W) {
                FloatVector s = FloatVector.broadcast(F, sa);
                FloatVector vb = FloatVector.fromMemorySegment(F, b, (bo + j) * 4, LE);
                s.add(vb).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        } else {
            float sb = b.getAtIndex(JAVA_FLOAT, bo);
            for (int j = 0; j < n; j += W) {
                FloatVector s = FloatVector.broadcast(F, sb);
                FloatVector va = FloatVector.fromMemorySegment(F, a, (ao + j) * 4, LE);
                va.add(s).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        }
    }

    private static void sub(MemorySegment a, long ao, MemorySegment b, long bo,
            MemorySegment y, long yo, int n, int layout) {
        if (layout == VV) {
            for (int j = 0; j < n; j += W) {
                FloatVector va = FloatVector.fromMemorySegment(F, a, (ao + j) * 4, LE);
                FloatVector vb = FloatVector.fromMemorySegment(F, b, (bo + j) * 4, LE);
                va.sub(vb).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        } else if (layout == SV) {
            float sa = a.getAtIndex(JAVA_FLOAT, ao);
            for (int j = 0; j < n; j += W) {
                FloatVector s = FloatVector.broadcast(F, sa);
                FloatVector vb = FloatVector.fromMemorySegment(F, b, (bo + j) * 4, LE);
                s.sub(vb).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        } else {
            float sb = b.getAtIndex(JAVA_FLOAT, bo);
            for (int j = 0; j < n; j += W) {
                FloatVector s = FloatVector.broadcast(F, sb);
                FloatVector va = FloatVector.fromMemorySegment(F, a, (ao + j) * 4, LE);
                va.sub(s).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        }
    }

    private static void mul(MemorySegment a, long ao, MemorySegment b, long bo,
            MemorySegment y, long yo, int n, int layout) {
        if (layout == VV) {
            for (int j = 0; j < n; j += W) {
                FloatVector va = FloatVector.fromMemorySegment(F, a, (ao + j) * 4, LE);
                FloatVector vb = FloatVector.fromMemorySegment(F, b, (bo + j) * 4, LE);
                va.mul(vb).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        } else if (layout == SV) {
            float sa = a.getAtIndex(JAVA_FLOAT, ao);
            for (int j = 0; j < n; j += W) {
                FloatVector s = FloatVector.broadcast(F, sa);
                FloatVector vb = FloatVector.fromMemorySegment(F, b, (bo + j) * 4, LE);
                s.mul(vb).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        } else {
            float sb = b.getAtIndex(JAVA_FLOAT, bo);
            for (int j = 0; j < n; j += W) {
                FloatVector s = FloatVector.broadcast(F, sb);
                FloatVector va = FloatVector.fromMemorySegment(F, a, (ao + j) * 4, LE);
                va.mul(s).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        }
    }

    private static void div(MemorySegment a, long ao, MemorySegment b, long bo,
            MemorySegment y, long yo, int n, int layout) {
        if (layout == VV) {
            for (int j = 0; j < n; j += W) {
                FloatVector va = FloatVector.fromMemorySegment(F, a, (ao + j) * 4, LE);
                FloatVector vb = FloatVector.fromMemorySegment(F, b, (bo + j) * 4, LE);
                va.div(vb).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        } else if (layout == SV) {
            float sa = a.getAtIndex(JAVA_FLOAT, ao);
            for (int j = 0; j < n; j += W) {
                FloatVector s = FloatVector.broadcast(F, sa);
                FloatVector vb = FloatVector.fromMemorySegment(F, b, (bo + j) * 4, LE);
                s.div(vb).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        } else {
            float sb = b.getAtIndex(JAVA_FLOAT, bo);
            for (int j = 0; j < n; j += W) {
                FloatVector s = FloatVector.broadcast(F, sb);
                FloatVector va = FloatVector.fromMemorySegment(F, a, (ao + j) * 4, LE);
                va.div(s).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        }
    }

    private static void max(MemorySegment a, long ao, MemorySegment b, long bo,
            MemorySegment y, long yo, int n, int layout) {
        if (layout == VV) {
            for (int j = 0; j < n; j += W) {
                FloatVector va = FloatVector.fromMemorySegment(F, a, (ao + j) * 4, LE);
                FloatVector vb = FloatVector.fromMemorySegment(F, b, (bo + j) * 4, LE);
                va.max(vb).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        } else if (layout == SV) {
            float sa = a.getAtIndex(JAVA_FLOAT, ao);
            for (int j = 0; j < n; j += W) {
                FloatVector s = FloatVector.broadcast(F, sa);
                FloatVector vb = FloatVector.fromMemorySegment(F, b, (bo + j) * 4, LE);
                s.max(vb).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        } else {
            float sb = b.getAtIndex(JAVA_FLOAT, bo);
            for (int j = 0; j < n; j += W) {
                FloatVector s = FloatVector.broadcast(F, sb);
                FloatVector va = FloatVector.fromMemorySegment(F, a, (ao + j) * 4, LE);
                va.max(s).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        }
    }

    private static void min(MemorySegment a, long ao, MemorySegment b, long bo,
            MemorySegment y, long yo, int n, int layout) {
        if (layout == VV) {
            for (int j = 0; j < n; j += W) {
                FloatVector va = FloatVector.fromMemorySegment(F, a, (ao + j) * 4, LE);
                FloatVector vb = FloatVector.fromMemorySegment(F, b, (bo + j) * 4, LE);
                va.min(vb).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        } else if (layout == SV) {
            float sa = a.getAtIndex(JAVA_FLOAT, ao);
            for (int j = 0; j < n; j += W) {
                FloatVector s = FloatVector.broadcast(F, sa);
                FloatVector vb = FloatVector.fromMemorySegment(F, b, (bo + j) * 4, LE);
                s.min(vb).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        } else {
            float sb = b.getAtIndex(JAVA_FLOAT, bo);
            for (int j = 0; j < n; j += W) {
                FloatVector s = FloatVector.broadcast(F, sb);
                FloatVector va = FloatVector.fromMemorySegment(F, a, (ao + j) * 4, LE);
                va.min(s).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        }
    }
}
