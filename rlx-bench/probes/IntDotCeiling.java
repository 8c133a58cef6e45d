/*
 * Ceiling of the int8 inner loops the JDK can reach, against the f32 FMA tile RLX's SGEMM is built on (issue 22,
 * "int8 MiniLM faster than fp32"). One thread, data in L1, GOPS = 2 * multiply-adds / ns, best of 12 rounds:
 *   autovec MulAddS2I axpy: out[i] += a[2i]*b[2i] + a[2i+1]*b[2i+1] on shorts, which C2's SuperWord turns into
 *     VPMADDWD (VPDPWSSD with AVX512_VNNI); the accumulator lives in memory, so it is load/store bound;
 *   Vector API f32 FMA, 4 rows x 32 columns register-blocked (8 accumulators);
 *   Vector API bytes widened to int (B2I), int mul + add, same blocking;
 *   Vector API short mul (|a| <= 255, |b| <= 128 fit in 16 bits) widened S2I into int accumulators.
 * The reduction form (s += a[2i]*b[2i] + a[2i+1]*b[2i+1]) is not vectorised by C2 at all (see reductionGops).
 *
 *   java --add-modules jdk.incubator.vector rlx-bench/probes/IntDotCeiling.java
 */
import jdk.incubator.vector.*;
import java.util.Random;
/** L1-resident ceilings of int8-ish inner loops vs f32 FMA, one thread, GOPS = 2 * MACs / ns. */
public class IntDotCeiling {
    static final VectorSpecies<Float> F = FloatVector.SPECIES_512;
    static final VectorSpecies<Integer> I = IntVector.SPECIES_512;
    static final VectorSpecies<Byte> B128 = ByteVector.SPECIES_128;
    static final int N = 256, K = 64;
    // C2 MulAddS2I auto-vectorised: out[i] += ap[2i]*b[2i] + ap[2i+1]*b[2i+1]  (VPMADDWD / VPDPWSSD)
    static void madd(int[] out, short[] ap, short[] b, int bo, int n) {
        for (int i = 0; i < n; i++) out[i] += ap[2 * i] * b[bo + 2 * i] + ap[2 * i + 1] * b[bo + 2 * i + 1];
    }
    static double maddRun(int[] out, short[] ap, short[] b) { // K/2 pair rows of b, each 2N shorts
        long t = System.nanoTime(); int reps = 20000;
        for (int r = 0; r < reps; r++) for (int p = 0; p < K / 2; p++) madd(out, ap, b, p * 2 * N, N);
        return 2.0 * reps * K * N / (System.nanoTime() - t);
    }
    // f32 register-blocked 4 rows x 2 vectors (8 accumulators) over K, B packed [K][32]
    static float fmaTile(float[] a, float[] b, int k) {
        FloatVector c00 = FloatVector.zero(F), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00;
        for (int p = 0; p < k; p++) {
            FloatVector b0 = FloatVector.fromArray(F, b, p * 32), b1 = FloatVector.fromArray(F, b, p * 32 + 16);
            FloatVector a0 = FloatVector.broadcast(F, a[p * 4]), a1 = FloatVector.broadcast(F, a[p * 4 + 1]);
            FloatVector a2 = FloatVector.broadcast(F, a[p * 4 + 2]), a3 = FloatVector.broadcast(F, a[p * 4 + 3]);
            c00 = a0.fma(b0, c00); c01 = a0.fma(b1, c01); c10 = a1.fma(b0, c10); c11 = a1.fma(b1, c11);
            c20 = a2.fma(b0, c20); c21 = a2.fma(b1, c21); c30 = a3.fma(b0, c30); c31 = a3.fma(b1, c31);
        }
        return c00.add(c01).add(c10).add(c11).add(c20).add(c21).add(c30).add(c31).lane(3);
    }
    static double fmaRun(float[] a, float[] b) {
        long t = System.nanoTime(); int reps = 200000; float s = 0;
        for (int r = 0; r < reps; r++) s += fmaTile(a, b, 256);
        if (s == 1.2345f) System.out.print("");
        return 2.0 * reps * 256 * 4 * 32 / (System.nanoTime() - t);
    }
    // int: bytes widened to int (B2I), int mul + add, 4 rows x 2 vectors; B packed [K][32] bytes
    static int intTile(int[] a, byte[] b, int k) {
        IntVector c00 = IntVector.zero(I), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00;
        for (int p = 0; p < k; p++) {
            IntVector b0 = (IntVector) ByteVector.fromArray(B128, b, p * 32).convertShape(VectorOperators.B2I, I, 0);
            IntVector b1 = (IntVector) ByteVector.fromArray(B128, b, p * 32 + 16).convertShape(VectorOperators.B2I, I, 0);
            IntVector a0 = IntVector.broadcast(I, a[p * 4]), a1 = IntVector.broadcast(I, a[p * 4 + 1]);
            IntVector a2 = IntVector.broadcast(I, a[p * 4 + 2]), a3 = IntVector.broadcast(I, a[p * 4 + 3]);
            c00 = a0.mul(b0).add(c00); c01 = a0.mul(b1).add(c01); c10 = a1.mul(b0).add(c10); c11 = a1.mul(b1).add(c11);
            c20 = a2.mul(b0).add(c20); c21 = a2.mul(b1).add(c21); c30 = a3.mul(b0).add(c30); c31 = a3.mul(b1).add(c31);
        }
        return c00.add(c01).add(c10).add(c11).add(c20).add(c21).add(c30).add(c31).lane(3);
    }
    static double intRun(int[] a, byte[] b) {
        long t = System.nanoTime(); int reps = 200000; int s = 0;
        for (int r = 0; r < reps; r++) s += intTile(a, b, 256);
        if (s == 12345) System.out.print("");
        return 2.0 * reps * 256 * 4 * 32 / (System.nanoTime() - t);
    }
    static final VectorSpecies<Short> S = ShortVector.SPECIES_512;
    // shorts: 32 products per short mul (|a| <= 255, |b| <= 128 fit), widened to two int vectors and added
    static int shortTile(short[] a, short[] b, int k) {
        IntVector c00 = IntVector.zero(I), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00;
        for (int p = 0; p < k; p++) {
            ShortVector b0 = ShortVector.fromArray(S, b, p * 32);
            ShortVector p0 = b0.mul(a[p * 4]), p1 = b0.mul(a[p * 4 + 1]), p2 = b0.mul(a[p * 4 + 2]), p3 = b0.mul(a[p * 4 + 3]);
            c00 = c00.add((IntVector) p0.convertShape(VectorOperators.S2I, I, 0)); c01 = c01.add((IntVector) p0.convertShape(VectorOperators.S2I, I, 1));
            c10 = c10.add((IntVector) p1.convertShape(VectorOperators.S2I, I, 0)); c11 = c11.add((IntVector) p1.convertShape(VectorOperators.S2I, I, 1));
            c20 = c20.add((IntVector) p2.convertShape(VectorOperators.S2I, I, 0)); c21 = c21.add((IntVector) p2.convertShape(VectorOperators.S2I, I, 1));
            c30 = c30.add((IntVector) p3.convertShape(VectorOperators.S2I, I, 0)); c31 = c31.add((IntVector) p3.convertShape(VectorOperators.S2I, I, 1));
        }
        return c00.add(c01).add(c10).add(c11).add(c20).add(c21).add(c30).add(c31).lane(3);
    }
    static double shortRun(short[] a, short[] b) {
        long t = System.nanoTime(); int reps = 200000; int s = 0;
        for (int r = 0; r < reps; r++) s += shortTile(a, b, 224);
        if (s == 12345) System.out.print("");
        return 2.0 * reps * 224 * 4 * 32 / (System.nanoTime() - t);
    }
    static int dot1(short[] a, short[] b, int k) {
        int s = 0;
        for (int i = 0; i < k / 2; i++) s += a[2 * i] * b[2 * i] + a[2 * i + 1] * b[2 * i + 1];
        return s;
    }
    static int dot4(short[] a, short[] b0, short[] b1, short[] b2, short[] b3, int k, int[] o) {
        int s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (int i = 0; i < k / 2; i++) {
            int x0 = a[2 * i], x1 = a[2 * i + 1];
            s0 += x0 * b0[2 * i] + x1 * b0[2 * i + 1];
            s1 += x0 * b1[2 * i] + x1 * b1[2 * i + 1];
            s2 += x0 * b2[2 * i] + x1 * b2[2 * i + 1];
            s3 += x0 * b3[2 * i] + x1 * b3[2 * i + 1];
        }
        o[0] = s0; o[1] = s1; o[2] = s2; o[3] = s3;
        return s0;
    }
    static double reductionGops(short[] a, short[] b0, short[] b1, short[] b2, short[] b3, int k) {
        int[] o = new int[4]; long t = System.nanoTime(); int s = 0;
        for (int q = 0; q < 100000; q++) s += dot4(a, b0, b1, b2, b3, k, o);
        if (s == 1) System.out.print("");
        return 2.0 * 100000 * k * 4 / (System.nanoTime() - t);
    }
    public static void main(String[] x) {
        Random r = new Random(1);
        int[] out = new int[N]; short[] ap = new short[2 * N]; short[] b = new short[K * N];
        for (int i = 0; i < ap.length; i++) ap[i] = (short) r.nextInt(256);
        for (int i = 0; i < b.length; i++) b[i] = (short) (r.nextInt(256) - 128);
        float[] af = new float[1024], bf = new float[256 * 32];
        for (int i = 0; i < af.length; i++) af[i] = r.nextFloat();
        for (int i = 0; i < bf.length; i++) bf[i] = r.nextFloat();
        int[] ai = new int[1024]; byte[] bi = new byte[256 * 32];
        for (int i = 0; i < ai.length; i++) ai[i] = r.nextInt(256);
        r.nextBytes(bi);
        double m1 = 0, m2 = 0, m3 = 0, m4 = 0, m5 = 0;
        short[] rb = new short[384]; for (int i = 0; i < 384; i++) rb[i] = (short) (r.nextInt(256) - 128);
        short[] as = new short[1024]; short[] bs = new short[256 * 32];
        for (int i = 0; i < as.length; i++) as[i] = (short) ai[i];
        for (int i = 0; i < bs.length; i++) bs[i] = bi[i];
        for (int rep = 0; rep < 12; rep++) {
            m1 = Math.max(m1, maddRun(out, ap, b)); m2 = Math.max(m2, fmaRun(af, bf)); m3 = Math.max(m3, intRun(ai, bi));
            m4 = Math.max(m4, shortRun(as, bs));
            m5 = Math.max(m5, reductionGops(as, rb, rb, rb, rb, 384));
        }
        System.out.printf("best of 12: autovec MulAddS2I axpy %.1f | VectorAPI f32 fma 4x32 %.1f | VectorAPI B2I int mul+add 4x32 %.1f | VectorAPI short mul + S2I + add 4x64 %.1f | MulAddS2I reduction, 4 sums %.1f GOPS%n", m1, m2, m3, m4, m5);
    }
}
