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
 * done; the caller finishes the tail and any other layout.
 */
final class BinaryF32Loops {
    private BinaryF32Loops() {}

    private static final VectorSpecies<Float> F = VectorMath.F;
    private static final int W = F.length();
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private static FloatVector load(MemorySegment x, long i) {
        return FloatVector.fromMemorySegment(F, x, i * 4, LE);
    }

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

    private static void add(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment y, long yo, int n, int layout) {
        if (layout == VV) {
            for (int j = 0; j < n; j += W) {
                load(a, ao + j).add(load(b, bo + j)).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        } else if (layout == SV) {
            FloatVector s = FloatVector.broadcast(F, a.getAtIndex(JAVA_FLOAT, ao));
            for (int j = 0; j < n; j += W) {
                s.add(load(b, bo + j)).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        } else {
            FloatVector s = FloatVector.broadcast(F, b.getAtIndex(JAVA_FLOAT, bo));
            for (int j = 0; j < n; j += W) {
                load(a, ao + j).add(s).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        }
    }

    private static void sub(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment y, long yo, int n, int layout) {
        if (layout == VV) {
            for (int j = 0; j < n; j += W) {
                load(a, ao + j).sub(load(b, bo + j)).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        } else if (layout == SV) {
            FloatVector s = FloatVector.broadcast(F, a.getAtIndex(JAVA_FLOAT, ao));
            for (int j = 0; j < n; j += W) {
                s.sub(load(b, bo + j)).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        } else {
            FloatVector s = FloatVector.broadcast(F, b.getAtIndex(JAVA_FLOAT, bo));
            for (int j = 0; j < n; j += W) {
                load(a, ao + j).sub(s).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        }
    }

    private static void mul(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment y, long yo, int n, int layout) {
        if (layout == VV) {
            for (int j = 0; j < n; j += W) {
                load(a, ao + j).mul(load(b, bo + j)).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        } else if (layout == SV) {
            FloatVector s = FloatVector.broadcast(F, a.getAtIndex(JAVA_FLOAT, ao));
            for (int j = 0; j < n; j += W) {
                s.mul(load(b, bo + j)).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        } else {
            FloatVector s = FloatVector.broadcast(F, b.getAtIndex(JAVA_FLOAT, bo));
            for (int j = 0; j < n; j += W) {
                load(a, ao + j).mul(s).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        }
    }

    private static void div(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment y, long yo, int n, int layout) {
        if (layout == VV) {
            for (int j = 0; j < n; j += W) {
                load(a, ao + j).div(load(b, bo + j)).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        } else if (layout == SV) {
            FloatVector s = FloatVector.broadcast(F, a.getAtIndex(JAVA_FLOAT, ao));
            for (int j = 0; j < n; j += W) {
                s.div(load(b, bo + j)).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        } else {
            FloatVector s = FloatVector.broadcast(F, b.getAtIndex(JAVA_FLOAT, bo));
            for (int j = 0; j < n; j += W) {
                load(a, ao + j).div(s).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        }
    }

    private static void max(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment y, long yo, int n, int layout) {
        if (layout == VV) {
            for (int j = 0; j < n; j += W) {
                load(a, ao + j).max(load(b, bo + j)).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        } else if (layout == SV) {
            FloatVector s = FloatVector.broadcast(F, a.getAtIndex(JAVA_FLOAT, ao));
            for (int j = 0; j < n; j += W) {
                s.max(load(b, bo + j)).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        } else {
            FloatVector s = FloatVector.broadcast(F, b.getAtIndex(JAVA_FLOAT, bo));
            for (int j = 0; j < n; j += W) {
                load(a, ao + j).max(s).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        }
    }

    private static void min(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment y, long yo, int n, int layout) {
        if (layout == VV) {
            for (int j = 0; j < n; j += W) {
                load(a, ao + j).min(load(b, bo + j)).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        } else if (layout == SV) {
            FloatVector s = FloatVector.broadcast(F, a.getAtIndex(JAVA_FLOAT, ao));
            for (int j = 0; j < n; j += W) {
                s.min(load(b, bo + j)).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        } else {
            FloatVector s = FloatVector.broadcast(F, b.getAtIndex(JAVA_FLOAT, bo));
            for (int j = 0; j < n; j += W) {
                load(a, ao + j).min(s).intoMemorySegment(y, (yo + j) * 4, LE);
            }
        }
    }
}
