package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * Single-precision matrix multiply {@code C = A B} in the Goto/BLIS scheme: B is packed into panels of
 * {@link #NR} columns per {@link #KC}-deep slice (kept in L2/L3) and a register-blocked micro-kernel
 * ({@code MR x NR} accumulators) multiplies MR rows of A by one panel, for each panel of an
 * {@link #MC}-row block of A (kept in L2). A is never packed: the micro-kernel reads its MR rows in place through
 * their row and column strides (packing row-major A cost a tenth of the time at 1024^3, and a transposed A,
 * as attention's P^T, a quarter). B is addressed through strides too, so a transposed operand needs no copy;
 * with at most {@link #IN_PLACE_ROWS} rows, or when the caller has just written B into a cache-sized scratch
 * (im2col), a row-major B is not packed at all but read in place.
 *
 * <p>The species is the platform's preferred one, chosen at run time; the micro-tile is 6 rows by 4 vectors
 * (24 accumulators) where there are 32 vector registers (AVX-512, NEON) and 6 by 2 on AVX2's 16. The tile
 * is written to a small buffer and merged into C by a separate loop: this keeps the micro-kernel small
 * enough for C1 to compile it on the way to C2 (a larger one stays interpreted, boxing every vector, until
 * C2 gets to it). One call computes one rectangle of C on the calling thread;
 * callers split C across threads ({@link MatMulKernel}). Skinny products (few rows, e.g. LLM decode) skip
 * packing and stream B once ({@link #skinny}).
 */
final class Sgemm {
    private Sgemm() {}

    static final VectorSpecies<Float> F = VectorMath.F;
    static final int W = F.length();
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    /** Micro-tile height (rows of A per micro-kernel call). */
    static final int MR = 6;
    /** Vectors per micro-tile row: as many accumulators as the register file allows. */
    private static final int NV = W == 8 ? 2 : 4;
    /** Micro-tile width. */
    static final int NR = NV * W;
    /**
     * Depth of a slice of K. Deep slices merge each tile into C fewer times; 512 measured best of 128..1024 at
     * 1024^3 on Zen 5 (AVX-512), though the differences were near the noise.
     */
    static final int KC = 512;
    /** Rows of A per block (an MC x KC block stays in L2). */
    static final int MC = MR * 16;
    /** Columns of B packed at once (a KC x NC block stays in L2/L3). */
    static final int NC = 2048;
    /** Products with at most this many rows use {@link #skinny} instead of packing. */
    static final int SKINNY_ROWS = 4;
    /**
     * Products with at most this many rows read a row-major B in place rather than packing it: packing costs
     * a copy of B per call, repaid only over many rows. MiniLM at sequence 16: 6.6 ms packed, 4.2 in place;
     * at 128 packing wins (128x384 . 384x1536: 187 GF/s packed, 163 in place).
     */
    static final int IN_PLACE_ROWS = 32;

    /** A matrix view: element (i, j) at {@code offset + i * rowStride + j * colStride} (in floats). */
    record Mat(MemorySegment seg, long offset, long rowStride, long colStride) {
        float at(long i, long j) {
            return seg.getAtIndex(JAVA_FLOAT, offset + i * rowStride + j * colStride);
        }
    }

    /** Per-thread packing buffers for products up to {@code n} columns. */
    record Workspace(MemorySegment packB, MemorySegment tile) {
        static long bytes(int n) {
            return 4L * ((long) KC * packedColumns(n) + (long) MR * NR) + 2 * 64;
        }

        static Workspace of(MemorySegment scratch, int n) {
            long b = (long) KC * packedColumns(n) * 4;
            long t = (long) MR * NR * 4;
            return new Workspace(scratch.asSlice(0, b), scratch.asSlice(align(b), t));
        }

        private static long align(long x) {
            return (x + 63) & ~63L;
        }
    }

    /** Packed B width for n columns: up to NC, rounded up to whole NR panels. */
    static int packedColumns(int n) {
        return Math.min(NC, (n + NR - 1) / NR * NR);
    }

    /** Called once per finished tile of C (all of K accumulated): rows [row0, row0+rows), cols [col0, col0+cols). */
    interface TileHook {
        void tile(int row0, int rows, int col0, int cols);
    }

    /**
     * {@code C[r0:r1, c0:c1] = A[r0:r1, p0:p1] B[p0:p1, c0:c1]}: the product over the shared dimension's range
     * {@code [p0, p1)}. C is row-major with leading dimension {@code ldc}, element (i, j) at
     * {@code cOff + i * ldc + j} (so {@code cOff} may be negative). {@code hook} (may be null) sees every
     * finished tile.
     */
    static void multiply(Mat a, Mat b, MemorySegment c, long cOff, long ldc, int r0, int r1, int c0, int c1, int p0,
                         int p1, Workspace ws, TileHook hook) {
        multiply(a, b, r1 - r0 <= IN_PLACE_ROWS, c, cOff, ldc, r0, r1, c0, c1, p0, p1, ws, hook);
    }

    /**
     * {@link #multiply} with B already packed whole by {@link #packWhole} ({@code packed}, for a B of depth
     * {@code k}): no packing per call. {@code c0} must be a multiple of {@link #NR} and the product's range of
     * K is all of it. The same tiles, in the same order, as packing per call: the same bits.
     */
    static void multiplyPacked(Mat a, MemorySegment packed, int k, MemorySegment c, long cOff, long ldc, int r0,
                               int r1, int c0, int c1, Workspace ws, TileHook hook) {
        if (c0 % NR != 0) {
            throw new IllegalArgumentException("a pre-packed B starts at a panel: column " + c0);
        }
        product(a, null, false, packed, k, c, cOff, ldc, r0, r1, c0, c1, 0, k, ws, hook);
    }

    /**
     * {@link #multiply}, saying whether to read a row-major B's full-width panels in place ({@code bInPlace})
     * rather than pack them: right for few rows, where each packed panel would be used only a few times, and
     * for a B the caller has just written into a cache-sized scratch (im2col's column matrix: packing it
     * again cost the conv benchmark 5-8%).
     */
    static void multiply(Mat a, Mat b, boolean bInPlace, MemorySegment c, long cOff, long ldc, int r0, int r1,
                         int c0, int c1, int p0, int p1, Workspace ws, TileHook hook) {
        product(a, b, bInPlace, null, 0, c, cOff, ldc, r0, r1, c0, c1, p0, p1, ws, hook);
    }

    /** The blocked product: B from {@code packed} (whole, depth {@code packedK}) when not null, else from {@code b}. */
    private static void product(Mat a, Mat b, boolean bInPlace, MemorySegment packed, int packedK, MemorySegment c,
                                long cOff, long ldc, int r0, int r1, int c0, int c1, int p0, int p1, Workspace ws,
                                TileHook hook) {
        int m = r1 - r0;
        int n = c1 - c0;
        if (m <= 0 || n <= 0) {
            return;
        }
        if (p1 <= p0) {
            for (int i = r0; i < r1; i++) {
                scale(0f, c, cOff + i * ldc + c0, c, cOff + i * ldc + c0, F.loopBound(n), n);
            }
            if (hook != null) {
                hook.tile(r0, m, c0, n);
            }
            return;
        }
        // full-width panels of a row-major B read in place: its rows are NR contiguous floats, B's row stride apart
        boolean inPlace = packed == null && NV == 4 && b.colStride() == 1 && bInPlace;
        for (int jc = c0; jc < c1; jc += NC) {
            int nc = Math.min(NC, c1 - jc);
            for (int pc = p0; pc < p1; pc += KC) {
                int kc = Math.min(KC, p1 - pc);
                boolean first = pc == p0;
                boolean last = pc + kc == p1;
                if (!inPlace && packed == null) {
                    packB(b, pc, kc, jc, nc, ws.packB(), ws.tile());
                }
                for (int ic = r0; ic < r1; ic += MC) {
                    int mc = Math.min(MC, r1 - ic);
                    for (int jr = 0; jr < nc; jr += NR) {
                        int nr = Math.min(NR, nc - jr);
                        MemorySegment bs = ws.packB();
                        long bp = (long) jr * kc;
                        long bStep = NR;
                        if (packed != null) { // panel (jc + jr) / NR of the whole packed B, rows from pc
                            bs = packed;
                            bp = (long) (jc + jr) * packedK + (long) pc * NR;
                        } else if (inPlace && nr == NR) {
                            bs = b.seg();
                            bp = b.offset() + (long) pc * b.rowStride() + jc + jr;
                            bStep = b.rowStride();
                        } else if (inPlace) {
                            packB(b, pc, kc, jc + jr, nr, ws.packB(), ws.tile()); // the last, narrow panel (m <= MC: once)
                            bp = 0;
                        }
                        for (int ir = 0; ir < mc; ir += MR) {
                            int mr = Math.min(MR, mc - ir);
                            long ap = a.offset() + (long) (ic + ir) * a.rowStride() + (long) pc * a.colStride();
                            micro(a.seg(), ap, a.rowStride(), a.colStride(), mr, bs, bp, bStep, kc, ws.tile());
                            mergeTile(ws.tile(), c, cOff + (ic + ir) * ldc + jc + jr, ldc, mr, nr, !first);
                            if (last && hook != null) {
                                hook.tile(ic + ir, mr, jc + jr, nr);
                            }
                        }
                    }
                }
            }
        }
    }

    /**
     * The micro-tile for A's rows {@code mr} (at most MR) from element {@code ao}, row {@code r} and depth
     * {@code p} at {@code ao + r*rs + p*cs}: A is read in place whatever its strides (row-major, transposed).
     * Rows past {@code mr} read row {@code mr - 1} again (valid memory; mergeTile drops them).
     */
    private static void micro(MemorySegment a, long ao, long rs, long cs, int mr, MemorySegment b, long bo,
                              long bStep, int kc, MemorySegment tile) {
        if (bStep != NR) {
            micro6x4Strided(a, ao, rs, cs, mr, b, bo, bStep, kc, tile);
        } else if (NV == 4) {
            micro6x4(a, ao, rs, cs, mr, b, bo, kc, tile);
        } else {
            micro6x2(a, ao, rs, cs, mr, b, bo, kc, tile);
        }
    }

    /** Adds (or writes) the valid {@code rows x cols} corner of the tile just computed into C. */
    private static void mergeTile(MemorySegment tile, MemorySegment c, long co, long ldc, int rows, int cols,
                                  boolean accumulate) {
        if (cols == NR) {
            for (int r = 0; r < rows; r++) {
                long t = (long) r * NR * 4;
                long o = (co + r * ldc) * 4;
                for (int v = 0; v < NR; v += W, t += W * 4L, o += W * 4L) {
                    FloatVector x = FloatVector.fromMemorySegment(F, tile, t, LE);
                    if (accumulate) {
                        x = x.add(FloatVector.fromMemorySegment(F, c, o, LE));
                    }
                    x.intoMemorySegment(c, o, LE);
                }
            }
            return;
        }
        for (int r = 0; r < rows; r++) {
            for (int j = 0; j < cols; j++) {
                float v = tile.getAtIndex(JAVA_FLOAT, (long) r * NR + j);
                long at = co + r * ldc + j;
                c.setAtIndex(JAVA_FLOAT, at, accumulate ? c.getAtIndex(JAVA_FLOAT, at) + v : v);
            }
        }
    }

    /**
     * Packs {@code B[p0:p0+kc, j0:j0+nc]} into panels of NR columns: panel q holds, for each p, the NR values
     * {@code B[p0 + p, j0 + q*NR + j]}; columns past the end are zero. Contiguous rows copy in bulk; a
     * transposed B (contiguous columns) goes over in W x W tiles transposed in registers, through {@code tmp}
     * (W * W floats).
     */
    static void packB(Mat b, int p0, int kc, int j0, int nc, MemorySegment dst, MemorySegment tmp) {
        int q0 = 0;
        if (b.colStride() == 1) {
            q0 = nc / NR * NR;
            packRows(b, p0, kc, j0, q0, dst);
        }
        long at = (long) q0 * kc;
        for (int q = q0; q < nc; q += NR) {
            int cols = Math.min(NR, nc - q);
            int p = 0;
            // B^T row-major (column j of B contiguous); tmp is the workspace's tile, MR * NR >= W * W floats
            // up to 512-bit vectors
            if (b.rowStride() == 1 && cols == NR && W * W <= MR * NR) {
                for (; p + W <= kc; p += W, at += (long) W * NR) {
                    for (int c = 0; c < NR; c += W) {
                        long src = b.offset() + (p0 + p) + (long) (j0 + q + c) * b.colStride();
                        TileTranspose.tile(b.seg(), src, b.colStride(), dst, at + c, NR, tmp);
                    }
                }
            }
            for (; p < kc; p++) {
                long src = b.offset() + (long) (p0 + p) * b.rowStride() + (long) (j0 + q) * b.colStride();
                if (b.colStride() == 1 && cols == NR) {
                    FloatRows.copy(b.seg(), src, dst, at, NR);
                } else {
                    for (int j = 0; j < cols; j++) {
                        dst.setAtIndex(JAVA_FLOAT, at + j, b.seg().getAtIndex(JAVA_FLOAT, src + j * b.colStride()));
                    }
                    for (int j = cols; j < NR; j++) {
                        dst.setAtIndex(JAVA_FLOAT, at + j, 0f);
                    }
                }
                at += NR;
            }
        }
    }

    /** Floats {@link #packWhole} writes for a B of {@code k} rows and {@code n} columns. */
    static long packedWholeFloats(int k, int n) {
        return (long) k * ((n + NR - 1) / NR * NR);
    }

    /**
     * Packs all of B ({@code k x n}) for {@link #multiplyPacked}: panel q (columns from q*NR) holds, for each of
     * the k rows, its NR values, at {@code q*NR*k}; so a slice of K rows of a panel is contiguous, as packing
     * per call makes it. {@code tmp} is a workspace's tile.
     */
    static void packWhole(Mat b, int k, int n, MemorySegment dst, MemorySegment tmp) {
        packB(b, 0, k, 0, n, dst, tmp);
    }

    /**
     * The full panels of {@code B[p0:p0+kc, j0:j0+nc]} (nc a multiple of NR) of a row-major B, row by row: each row
     * of B is read front to back, which the hardware prefetcher streams. Panel by panel, each row's NR floats
     * would be read a row stride apart (a weight's row is kilobytes: a new page each time), at L3 or DRAM latency:
     * that order spent a fifth of MiniLM's run in packing.
     */
    private static void packRows(Mat b, int p0, int kc, int j0, int nc, MemorySegment dst) {
        for (int p = 0; p < kc; p++) {
            long src = b.offset() + (long) (p0 + p) * b.rowStride() + j0;
            for (int q = 0; q < nc; q += NR) {
                FloatRows.copy(b.seg(), src + q, dst, (long) q * kc + (long) p * NR, NR);
            }
        }
    }

    /**
     * {@code C[r0:r1, c0:c1] = A[r0:r1, p0:p1] B[p0:p1, c0:c1]} for a few rows without packing: B is streamed
     * once, row by row, each row of it used for every row of A while in L1. B's columns must be contiguous.
     */
    static void skinny(Mat a, Mat b, MemorySegment c, long cOff, long ldc, int r0, int r1, int c0, int c1, int p0,
                       int p1) {
        int n = c1 - c0;
        int vn = F.loopBound(n);
        for (int i = r0; i < r1; i++) {
            long ci = cOff + i * ldc + c0;
            if (p1 <= p0) {
                scale(0f, c, ci, c, ci, vn, n);
            } else {
                scale(a.at(i, p0), b.seg(), b.offset() + (long) p0 * b.rowStride() + c0, c, ci, vn, n); // B's first row
            }
        }
        int p = p0 + 1;
        if (r1 - r0 == 1) { // a GEMV: four rows of B per pass over C, so C moves a quarter as often
            long ci = cOff + r0 * ldc + c0;
            for (; p + 3 < p1; p += 4) {
                long brow = b.offset() + (long) p * b.rowStride() + c0;
                axpy4(a.at(r0, p), a.at(r0, p + 1), a.at(r0, p + 2), a.at(r0, p + 3), b.seg(), brow,
                        b.rowStride(), c, ci, vn, n);
            }
        }
        for (; p < p1; p++) {
            long brow = b.offset() + (long) p * b.rowStride() + c0;
            for (int i = r0; i < r1; i++) {
                float av = a.at(i, p);
                if (av != 0f) { // padding rows and sparse activations cost nothing
                    axpy(av, b.seg(), brow, c, cOff + i * ldc + c0, vn, n);
                }
            }
        }
    }

    /** {@code y[yo + j] = s * x[xo + j]} for j in [0, n); the first {@code vn} by whole vectors. */
    private static void scale(float s, MemorySegment x, long xo, MemorySegment y, long yo, int vn, int n) {
        int j = 0;
        for (; j < vn; j += W) {
            FloatVector sv = FloatVector.broadcast(F, s); // splatted per iteration (hoisted): see BinaryF32Loops
            FloatVector.fromMemorySegment(F, x, (xo + j) * 4, LE).mul(sv).intoMemorySegment(y, (yo + j) * 4, LE);
        }
        for (; j < n; j++) {
            y.setAtIndex(JAVA_FLOAT, yo + j, s * x.getAtIndex(JAVA_FLOAT, xo + j));
        }
    }

    /** {@code y[yo + j] += sum over r < 4 of s_r * x[xo + r * ldx + j]} for j in [0, n); offsets in floats. */
    private static void axpy4(float s0, float s1, float s2, float s3, MemorySegment x, long xo, long ldx,
                              MemorySegment y, long yo, int vn, int n) {
        long x0 = xo * 4;
        long x1 = (xo + ldx) * 4;
        long x2 = (xo + 2 * ldx) * 4;
        long x3 = (xo + 3 * ldx) * 4;
        long yb = yo * 4;
        FloatVector v0 = FloatVector.broadcast(F, s0);
        FloatVector v1 = FloatVector.broadcast(F, s1);
        FloatVector v2 = FloatVector.broadcast(F, s2);
        FloatVector v3 = FloatVector.broadcast(F, s3);
        int j = 0;
        for (; j < vn; j += W) {
            long o = (long) j * 4;
            FloatVector acc = FloatVector.fromMemorySegment(F, y, yb + o, LE);
            acc = FloatVector.fromMemorySegment(F, x, x0 + o, LE).fma(v0, acc);
            acc = FloatVector.fromMemorySegment(F, x, x1 + o, LE).fma(v1, acc);
            acc = FloatVector.fromMemorySegment(F, x, x2 + o, LE).fma(v2, acc);
            acc = FloatVector.fromMemorySegment(F, x, x3 + o, LE).fma(v3, acc);
            acc.intoMemorySegment(y, yb + o, LE);
        }
        for (; j < n; j++) {
            float v = y.getAtIndex(JAVA_FLOAT, yo + j);
            v = Math.fma(s0, x.getAtIndex(JAVA_FLOAT, xo + j), v);
            v = Math.fma(s1, x.getAtIndex(JAVA_FLOAT, xo + ldx + j), v);
            v = Math.fma(s2, x.getAtIndex(JAVA_FLOAT, xo + 2 * ldx + j), v);
            v = Math.fma(s3, x.getAtIndex(JAVA_FLOAT, xo + 3 * ldx + j), v);
            y.setAtIndex(JAVA_FLOAT, yo + j, v);
        }
    }

    /** {@code y[yo + j] += s * x[xo + j]} for j in [0, n); the first {@code vn} elements by whole vectors. */
    static void axpy(float s, MemorySegment x, long xo, MemorySegment y, long yo, int vn, int n) {
        int j = 0;
        for (; j < vn; j += W) {
            FloatVector sv = FloatVector.broadcast(F, s);
            long xb = (xo + j) * 4;
            long yb = (yo + j) * 4;
            FloatVector.fromMemorySegment(F, x, xb, LE).fma(sv, FloatVector.fromMemorySegment(F, y, yb, LE))
                    .intoMemorySegment(y, yb, LE);
        }
        for (; j < n; j++) {
            y.setAtIndex(JAVA_FLOAT, yo + j, Math.fma(s, x.getAtIndex(JAVA_FLOAT, xo + j), y.getAtIndex(JAVA_FLOAT, yo + j)));
        }
    }

    /**
     * {@code y[j] = x . Bt[j, :]} for j in [c0, c1): a product with B given as rows of length k (B transposed,
     * e.g. a [out, in] weight), as dot products over contiguous memory.
     */
    static void dots(Mat a, int row, Mat bt, MemorySegment c, long cOff, int c0, int c1, int k) {
        int vk = F.loopBound(k);
        long xo = a.offset() + (long) row * a.rowStride();
        for (int j = c0; j < c1; j++) {
            long bo = bt.offset() + (long) j * bt.colStride();
            FloatVector acc = FloatVector.zero(F);
            int p = 0;
            for (; p < vk; p += W) {
                acc = FloatVector.fromMemorySegment(F, a.seg(), (xo + p) * 4, LE)
                        .fma(FloatVector.fromMemorySegment(F, bt.seg(), (bo + p) * 4, LE), acc);
            }
            float s = VectorMath.sumLanes(acc);
            for (; p < k; p++) {
                s = Math.fma(a.seg().getAtIndex(JAVA_FLOAT, xo + p), bt.seg().getAtIndex(JAVA_FLOAT, bo + p), s);
            }
            c.setAtIndex(JAVA_FLOAT, cOff + j, s);
        }
    }

    /** tile[6 x 4W] = A[6 x kc] . Bpack[kc x 4W], W = vector length; see {@link #micro}; offsets in floats. */
    private static void micro6x4(MemorySegment a, long ao, long rs, long cs, int mr, MemorySegment b, long bo,
                                 int kc, MemorySegment tile) {
        FloatVector c00 = FloatVector.zero(F), c01 = FloatVector.zero(F), c02 = FloatVector.zero(F), c03 = FloatVector.zero(F);
        FloatVector c10 = FloatVector.zero(F), c11 = FloatVector.zero(F), c12 = FloatVector.zero(F), c13 = FloatVector.zero(F);
        FloatVector c20 = FloatVector.zero(F), c21 = FloatVector.zero(F), c22 = FloatVector.zero(F), c23 = FloatVector.zero(F);
        FloatVector c30 = FloatVector.zero(F), c31 = FloatVector.zero(F), c32 = FloatVector.zero(F), c33 = FloatVector.zero(F);
        FloatVector c40 = FloatVector.zero(F), c41 = FloatVector.zero(F), c42 = FloatVector.zero(F), c43 = FloatVector.zero(F);
        FloatVector c50 = FloatVector.zero(F), c51 = FloatVector.zero(F), c52 = FloatVector.zero(F), c53 = FloatVector.zero(F);
        long ai = ao * 4;
        long step = cs * 4;
        long l1 = Math.min(1, mr - 1) * rs * 4, l2 = Math.min(2, mr - 1) * rs * 4, l3 = Math.min(3, mr - 1) * rs * 4;
        long l4 = Math.min(4, mr - 1) * rs * 4, l5 = Math.min(5, mr - 1) * rs * 4;
        long bi = bo * 4;
        for (int p = 0; p < kc; p++, ai += step, bi += 4L * W * 4) {
            FloatVector b0 = FloatVector.fromMemorySegment(F, b, bi, LE);
            FloatVector b1 = FloatVector.fromMemorySegment(F, b, bi + 1L * W * 4, LE);
            FloatVector b2 = FloatVector.fromMemorySegment(F, b, bi + 2L * W * 4, LE);
            FloatVector b3 = FloatVector.fromMemorySegment(F, b, bi + 3L * W * 4, LE);
            FloatVector a0 = FloatVector.broadcast(F, a.get(JAVA_FLOAT_UNALIGNED, ai));
            c00 = b0.fma(a0, c00); c01 = b1.fma(a0, c01); c02 = b2.fma(a0, c02); c03 = b3.fma(a0, c03);
            FloatVector a1 = FloatVector.broadcast(F, a.get(JAVA_FLOAT_UNALIGNED, ai + l1));
            c10 = b0.fma(a1, c10); c11 = b1.fma(a1, c11); c12 = b2.fma(a1, c12); c13 = b3.fma(a1, c13);
            FloatVector a2 = FloatVector.broadcast(F, a.get(JAVA_FLOAT_UNALIGNED, ai + l2));
            c20 = b0.fma(a2, c20); c21 = b1.fma(a2, c21); c22 = b2.fma(a2, c22); c23 = b3.fma(a2, c23);
            FloatVector a3 = FloatVector.broadcast(F, a.get(JAVA_FLOAT_UNALIGNED, ai + l3));
            c30 = b0.fma(a3, c30); c31 = b1.fma(a3, c31); c32 = b2.fma(a3, c32); c33 = b3.fma(a3, c33);
            FloatVector a4 = FloatVector.broadcast(F, a.get(JAVA_FLOAT_UNALIGNED, ai + l4));
            c40 = b0.fma(a4, c40); c41 = b1.fma(a4, c41); c42 = b2.fma(a4, c42); c43 = b3.fma(a4, c43);
            FloatVector a5 = FloatVector.broadcast(F, a.get(JAVA_FLOAT_UNALIGNED, ai + l5));
            c50 = b0.fma(a5, c50); c51 = b1.fma(a5, c51); c52 = b2.fma(a5, c52); c53 = b3.fma(a5, c53);
        }
        c00.intoMemorySegment(tile, (0L * W) * 4, LE);
        c01.intoMemorySegment(tile, (1L * W) * 4, LE);
        c02.intoMemorySegment(tile, (2L * W) * 4, LE);
        c03.intoMemorySegment(tile, (3L * W) * 4, LE);
        c10.intoMemorySegment(tile, (4L * W) * 4, LE);
        c11.intoMemorySegment(tile, (5L * W) * 4, LE);
        c12.intoMemorySegment(tile, (6L * W) * 4, LE);
        c13.intoMemorySegment(tile, (7L * W) * 4, LE);
        c20.intoMemorySegment(tile, (8L * W) * 4, LE);
        c21.intoMemorySegment(tile, (9L * W) * 4, LE);
        c22.intoMemorySegment(tile, (10L * W) * 4, LE);
        c23.intoMemorySegment(tile, (11L * W) * 4, LE);
        c30.intoMemorySegment(tile, (12L * W) * 4, LE);
        c31.intoMemorySegment(tile, (13L * W) * 4, LE);
        c32.intoMemorySegment(tile, (14L * W) * 4, LE);
        c33.intoMemorySegment(tile, (15L * W) * 4, LE);
        c40.intoMemorySegment(tile, (16L * W) * 4, LE);
        c41.intoMemorySegment(tile, (17L * W) * 4, LE);
        c42.intoMemorySegment(tile, (18L * W) * 4, LE);
        c43.intoMemorySegment(tile, (19L * W) * 4, LE);
        c50.intoMemorySegment(tile, (20L * W) * 4, LE);
        c51.intoMemorySegment(tile, (21L * W) * 4, LE);
        c52.intoMemorySegment(tile, (22L * W) * 4, LE);
        c53.intoMemorySegment(tile, (23L * W) * 4, LE);
    }

    /**
     * {@link #micro6x4} reading B's rows {@code bStep} floats apart (B in place, unpacked). A separate copy
     * because the packed kernel must keep its constant B stride: with a variable one C2 cannot take the
     * bounds checks of the B loads out of the loop, and SGEMM 1024^3 fell from 160 to 118 GF/s.
     */
    private static void micro6x4Strided(MemorySegment a, long ao, long rs, long cs, int mr, MemorySegment b,
                                        long bo, long bStep, int kc, MemorySegment tile) {
        FloatVector c00 = FloatVector.zero(F), c01 = FloatVector.zero(F), c02 = FloatVector.zero(F), c03 = FloatVector.zero(F);
        FloatVector c10 = FloatVector.zero(F), c11 = FloatVector.zero(F), c12 = FloatVector.zero(F), c13 = FloatVector.zero(F);
        FloatVector c20 = FloatVector.zero(F), c21 = FloatVector.zero(F), c22 = FloatVector.zero(F), c23 = FloatVector.zero(F);
        FloatVector c30 = FloatVector.zero(F), c31 = FloatVector.zero(F), c32 = FloatVector.zero(F), c33 = FloatVector.zero(F);
        FloatVector c40 = FloatVector.zero(F), c41 = FloatVector.zero(F), c42 = FloatVector.zero(F), c43 = FloatVector.zero(F);
        FloatVector c50 = FloatVector.zero(F), c51 = FloatVector.zero(F), c52 = FloatVector.zero(F), c53 = FloatVector.zero(F);
        long ai = ao * 4;
        long step = cs * 4;
        long l1 = Math.min(1, mr - 1) * rs * 4, l2 = Math.min(2, mr - 1) * rs * 4, l3 = Math.min(3, mr - 1) * rs * 4;
        long l4 = Math.min(4, mr - 1) * rs * 4, l5 = Math.min(5, mr - 1) * rs * 4;
        long bi = bo * 4;
        long bs = bStep * 4;
        for (int p = 0; p < kc; p++, ai += step, bi += bs) {
            FloatVector b0 = FloatVector.fromMemorySegment(F, b, bi, LE);
            FloatVector b1 = FloatVector.fromMemorySegment(F, b, bi + 1L * W * 4, LE);
            FloatVector b2 = FloatVector.fromMemorySegment(F, b, bi + 2L * W * 4, LE);
            FloatVector b3 = FloatVector.fromMemorySegment(F, b, bi + 3L * W * 4, LE);
            FloatVector a0 = FloatVector.broadcast(F, a.get(JAVA_FLOAT_UNALIGNED, ai));
            c00 = b0.fma(a0, c00); c01 = b1.fma(a0, c01); c02 = b2.fma(a0, c02); c03 = b3.fma(a0, c03);
            FloatVector a1 = FloatVector.broadcast(F, a.get(JAVA_FLOAT_UNALIGNED, ai + l1));
            c10 = b0.fma(a1, c10); c11 = b1.fma(a1, c11); c12 = b2.fma(a1, c12); c13 = b3.fma(a1, c13);
            FloatVector a2 = FloatVector.broadcast(F, a.get(JAVA_FLOAT_UNALIGNED, ai + l2));
            c20 = b0.fma(a2, c20); c21 = b1.fma(a2, c21); c22 = b2.fma(a2, c22); c23 = b3.fma(a2, c23);
            FloatVector a3 = FloatVector.broadcast(F, a.get(JAVA_FLOAT_UNALIGNED, ai + l3));
            c30 = b0.fma(a3, c30); c31 = b1.fma(a3, c31); c32 = b2.fma(a3, c32); c33 = b3.fma(a3, c33);
            FloatVector a4 = FloatVector.broadcast(F, a.get(JAVA_FLOAT_UNALIGNED, ai + l4));
            c40 = b0.fma(a4, c40); c41 = b1.fma(a4, c41); c42 = b2.fma(a4, c42); c43 = b3.fma(a4, c43);
            FloatVector a5 = FloatVector.broadcast(F, a.get(JAVA_FLOAT_UNALIGNED, ai + l5));
            c50 = b0.fma(a5, c50); c51 = b1.fma(a5, c51); c52 = b2.fma(a5, c52); c53 = b3.fma(a5, c53);
        }
        c00.intoMemorySegment(tile, (0L * W) * 4, LE);
        c01.intoMemorySegment(tile, (1L * W) * 4, LE);
        c02.intoMemorySegment(tile, (2L * W) * 4, LE);
        c03.intoMemorySegment(tile, (3L * W) * 4, LE);
        c10.intoMemorySegment(tile, (4L * W) * 4, LE);
        c11.intoMemorySegment(tile, (5L * W) * 4, LE);
        c12.intoMemorySegment(tile, (6L * W) * 4, LE);
        c13.intoMemorySegment(tile, (7L * W) * 4, LE);
        c20.intoMemorySegment(tile, (8L * W) * 4, LE);
        c21.intoMemorySegment(tile, (9L * W) * 4, LE);
        c22.intoMemorySegment(tile, (10L * W) * 4, LE);
        c23.intoMemorySegment(tile, (11L * W) * 4, LE);
        c30.intoMemorySegment(tile, (12L * W) * 4, LE);
        c31.intoMemorySegment(tile, (13L * W) * 4, LE);
        c32.intoMemorySegment(tile, (14L * W) * 4, LE);
        c33.intoMemorySegment(tile, (15L * W) * 4, LE);
        c40.intoMemorySegment(tile, (16L * W) * 4, LE);
        c41.intoMemorySegment(tile, (17L * W) * 4, LE);
        c42.intoMemorySegment(tile, (18L * W) * 4, LE);
        c43.intoMemorySegment(tile, (19L * W) * 4, LE);
        c50.intoMemorySegment(tile, (20L * W) * 4, LE);
        c51.intoMemorySegment(tile, (21L * W) * 4, LE);
        c52.intoMemorySegment(tile, (22L * W) * 4, LE);
        c53.intoMemorySegment(tile, (23L * W) * 4, LE);
    }

    /** tile[6 x 2W] = A[6 x kc] . Bpack[kc x 2W], W = vector length; see {@link #micro}; offsets in floats. */
    private static void micro6x2(MemorySegment a, long ao, long rs, long cs, int mr, MemorySegment b, long bo,
                                 int kc, MemorySegment tile) {
        FloatVector c00 = FloatVector.zero(F), c01 = FloatVector.zero(F);
        FloatVector c10 = FloatVector.zero(F), c11 = FloatVector.zero(F);
        FloatVector c20 = FloatVector.zero(F), c21 = FloatVector.zero(F);
        FloatVector c30 = FloatVector.zero(F), c31 = FloatVector.zero(F);
        FloatVector c40 = FloatVector.zero(F), c41 = FloatVector.zero(F);
        FloatVector c50 = FloatVector.zero(F), c51 = FloatVector.zero(F);
        long ai = ao * 4;
        long step = cs * 4;
        long l1 = Math.min(1, mr - 1) * rs * 4, l2 = Math.min(2, mr - 1) * rs * 4, l3 = Math.min(3, mr - 1) * rs * 4;
        long l4 = Math.min(4, mr - 1) * rs * 4, l5 = Math.min(5, mr - 1) * rs * 4;
        long bi = bo * 4;
        for (int p = 0; p < kc; p++, ai += step, bi += 2L * W * 4) {
            FloatVector b0 = FloatVector.fromMemorySegment(F, b, bi, LE);
            FloatVector b1 = FloatVector.fromMemorySegment(F, b, bi + 1L * W * 4, LE);
            FloatVector a0 = FloatVector.broadcast(F, a.get(JAVA_FLOAT_UNALIGNED, ai));
            c00 = b0.fma(a0, c00); c01 = b1.fma(a0, c01);
            FloatVector a1 = FloatVector.broadcast(F, a.get(JAVA_FLOAT_UNALIGNED, ai + l1));
            c10 = b0.fma(a1, c10); c11 = b1.fma(a1, c11);
            FloatVector a2 = FloatVector.broadcast(F, a.get(JAVA_FLOAT_UNALIGNED, ai + l2));
            c20 = b0.fma(a2, c20); c21 = b1.fma(a2, c21);
            FloatVector a3 = FloatVector.broadcast(F, a.get(JAVA_FLOAT_UNALIGNED, ai + l3));
            c30 = b0.fma(a3, c30); c31 = b1.fma(a3, c31);
            FloatVector a4 = FloatVector.broadcast(F, a.get(JAVA_FLOAT_UNALIGNED, ai + l4));
            c40 = b0.fma(a4, c40); c41 = b1.fma(a4, c41);
            FloatVector a5 = FloatVector.broadcast(F, a.get(JAVA_FLOAT_UNALIGNED, ai + l5));
            c50 = b0.fma(a5, c50); c51 = b1.fma(a5, c51);
        }
        c00.intoMemorySegment(tile, (0L * W) * 4, LE);
        c01.intoMemorySegment(tile, (1L * W) * 4, LE);
        c10.intoMemorySegment(tile, (2L * W) * 4, LE);
        c11.intoMemorySegment(tile, (3L * W) * 4, LE);
        c20.intoMemorySegment(tile, (4L * W) * 4, LE);
        c21.intoMemorySegment(tile, (5L * W) * 4, LE);
        c30.intoMemorySegment(tile, (6L * W) * 4, LE);
        c31.intoMemorySegment(tile, (7L * W) * 4, LE);
        c40.intoMemorySegment(tile, (8L * W) * 4, LE);
        c41.intoMemorySegment(tile, (9L * W) * 4, LE);
        c50.intoMemorySegment(tile, (10L * W) * 4, LE);
        c51.intoMemorySegment(tile, (11L * W) * 4, LE);
    }
}
