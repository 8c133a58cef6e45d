package dev.rlx.cpu.kernels;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.rlx.ir.Elements;
import dev.rlx.ir.DType;
import dev.rlx.ir.Node;
import dev.rlx.ir.Op;
import dev.rlx.runtime.RngOptions;
import dev.rlx.runtime.random.MinStdRand0;
import dev.rlx.runtime.random.Philox4x32;
import dev.rlx.runtime.random.StdDistributions;
import dev.rlx.runtime.random.StdNormal;
import java.lang.foreign.MemorySegment;

/**
 * {@code RngNormal} and {@code RngUniform}: fills the output from the generator of the current
 * {@link RngOptions} (see there for the stream rule).
 *
 * <p>PHILOX: the node's key is {@code streamSeed} split into two words; block {@code b} of run {@code r} is
 * Philox of counter {@code (b, r)} (both 64-bit, low word first) and gives elements {@code 4b..4b+3}: four
 * uniforms {@code low + u·(high−low)}, or two Box–Muller pairs {@code (w0, w1)}, {@code (w2, w3)} each giving
 * {@code r·cos θ} then {@code r·sin θ} with {@code r = √(−2 ln u₁)}, {@code θ = 2π u₂}. Every element is a
 * pure function of (seed, key, index, run), so the result does not depend on threads or chunking. Values have
 * 24 random bits and are computed in double ({@code StrictMath}), then rounded to the output dtype.
 *
 * <p>ORT: one {@code minstd_rand0} per node, seeded at build and by {@code setRng}, filled sequentially with
 * a fresh libstdc++ distribution per run (so a normal spare never crosses runs), exactly as ONNX Runtime's
 * CPU kernel. ZERO: the distribution's mean.
 *
 * <p>Parallel units are parts (contiguous block ranges), each with its own four-word scratch, so no two
 * threads share scratch; {@link #run} allocates nothing.
 */
final class RngKernel implements Kernel, RangeTask, Reseedable {
    private static final double TWO_PI = 2 * Math.PI;

    private final MemorySegment out;
    private final DType dtype;
    private final long count;
    private final boolean normal;
    private final float a; // mean or low
    private final float b; // scale or high
    private final long nodeSeed;
    private final boolean hasSeed;
    private final long key;
    private final Parallel parallel;
    private final long blocks;
    private final int parts;
    private final int[] words; // (parts, 4) Philox output per part
    private final MinStdRand0 engine = new MinStdRand0(0);
    private final StdNormal stdNormal = new StdNormal();

    private RngOptions rng;
    private long runIndex;
    private int k0;
    private int k1;

    private RngKernel(Buf out, boolean normal, float a, float b, long nodeSeed, boolean hasSeed, long key,
                      LowerContext ctx) {
        this.out = out.seg();
        this.dtype = out.dtype();
        this.count = out.size();
        this.normal = normal;
        this.a = a;
        this.b = b;
        this.nodeSeed = nodeSeed;
        this.hasSeed = hasSeed;
        this.key = key;
        this.parallel = ctx.parallel();
        this.blocks = (count + 3) / 4;
        // A normal costs a log, a cos and a sin, so normals split into smaller parts than uniforms.
        this.parts = (int) Math.max(1, Math.min(ctx.parallel().threads(), count / (normal ? 1024 : Grain.ELEMENTS)));
        this.words = new int[parts * 4];
        setRng(ctx.rng());
    }

    static Kernel of(Node n, LowerContext ctx) {
        RngKernel k = switch (n.op()) {
            case Op.RngNormal r -> new RngKernel(ctx.out(n, 0), true, r.mean(), r.scale(), r.seed(), r.hasSeed(),
                    r.key(), ctx);
            case Op.RngUniform r -> new RngKernel(ctx.out(n, 0), false, r.low(), r.high(), r.seed(), r.hasSeed(),
                    r.key(), ctx);
            default -> throw new IllegalArgumentException("not an RNG op: " + n.describe());
        };
        ctx.reseedable(k);
        return k;
    }

    @Override
    public void setRng(RngOptions o) {
        rng = o;
        runIndex = 0;
        long s = o.streamSeed(nodeSeed, hasSeed, key);
        k0 = (int) s;
        k1 = (int) (s >>> 32);
        engine.seed(o.ortEngineSeed(nodeSeed, hasSeed, key));
    }

    @Override
    public void run() {
        switch (rng.generator()) {
            case PHILOX -> {
                parallel.parallelFor(parts, 1, this);
                if (rng.advanceAcrossRuns()) {
                    runIndex++;
                }
            }
            case ORT -> {
                if (!rng.advanceAcrossRuns()) {
                    engine.seed(rng.ortEngineSeed(nodeSeed, hasSeed, key));
                }
                ort();
            }
            case ZERO -> {
                double mean = normal ? a : ((double) a + b) / 2;
                for (long i = 0; i < count; i++) {
                    store(i, mean);
                }
            }
        }
    }

    @Override
    public void range(int from, int to) {
        for (int p = from; p < to; p++) {
            int w = 4 * p;
            for (long blk = blocks * p / parts, end = blocks * (p + 1) / parts; blk < end; blk++) {
                Philox4x32.block((int) blk, (int) (blk >>> 32), (int) runIndex, (int) (runIndex >>> 32), k0, k1,
                        words, w);
                long base = 4 * blk;
                if (normal) {
                    boxMuller(base, words[w], words[w + 1]);
                    boxMuller(base + 2, words[w + 2], words[w + 3]);
                } else {
                    for (int j = 0; j < 4; j++) {
                        uniform(base + j, words[w + j]);
                    }
                }
            }
        }
    }

    private void boxMuller(long i, int w1, int w2) {
        double r = Math.sqrt(-2 * StrictMath.log(Philox4x32.unitOpenBelow(w1)));
        double u = Philox4x32.unitFloat(w2);
        if (i < count) {
            store(i, a + b * (r * cos2pi(u)));
        }
        if (i + 1 < count) {
            double v = u + 0.75; // sin(2πu) = cos(2π(u + 3/4)); exact for u = k·2⁻²⁴
            store(i + 1, a + b * (r * cos2pi(v >= 1 ? v - 1 : v)));
        }
    }

    /**
     * {@code cos(2πu)} for {@code u} in {@code [0, 1)} from additions and multiplications only, so it is the
     * same on every JVM and CPU (StrictMath's sin and cos allocate for argument reduction; Math's may differ
     * between platforms). Folds {@code u} into {@code [0, 1/8]} exactly, then a Taylor series on at most π/4
     * (truncation below 1e-17).
     */
    static double cos2pi(double u) {
        if (u > 0.5) {
            u = 1 - u;
        }
        double sign = 1;
        if (u > 0.25) {
            u = 0.5 - u;
            sign = -1;
        }
        return u <= 0.125 ? sign * cosTaylor(TWO_PI * u) : sign * sinTaylor(TWO_PI * (0.25 - u));
    }

    private static double cosTaylor(double x) {
        double x2 = x * x;
        double p = 1.0 / 20922789888000.0; // 1/16!
        p = p * x2 - 1.0 / 87178291200.0;   // 1/14!
        p = p * x2 + 1.0 / 479001600.0;     // 1/12!
        p = p * x2 - 1.0 / 3628800.0;       // 1/10!
        p = p * x2 + 1.0 / 40320.0;
        p = p * x2 - 1.0 / 720.0;
        p = p * x2 + 1.0 / 24.0;
        p = p * x2 - 0.5;
        return p * x2 + 1.0;
    }

    private static double sinTaylor(double x) {
        double x2 = x * x;
        double p = 1.0 / 355687428096000.0; // 1/17!
        p = p * x2 - 1.0 / 1307674368000.0; // 1/15!
        p = p * x2 + 1.0 / 6227020800.0;    // 1/13!
        p = p * x2 - 1.0 / 39916800.0;      // 1/11!
        p = p * x2 + 1.0 / 362880.0;
        p = p * x2 - 1.0 / 5040.0;
        p = p * x2 + 1.0 / 120.0;
        p = p * x2 - 1.0 / 6.0;
        return (p * x2 + 1.0) * x;
    }

    private void uniform(long i, int w) {
        if (i < count) {
            double v = a + Philox4x32.unitFloat(w) * ((double) b - a);
            store(i, v >= b && b > a ? Math.nextDown(b) : v); // keep [low, high) after rounding
        }
    }

    /** ONNX Runtime's fill: {@code std::for_each(out, [&](T& v) { v = dist(engine); })}. */
    private void ort() {
        stdNormal.reset();
        for (long i = 0; i < count; i++) {
            if (dtype == DType.F64) {
                store(i, normal ? stdNormal.nextDouble(engine, a, b) : StdDistributions.uniformDouble(engine, a, b));
            } else {
                store(i, normal ? stdNormal.nextFloat(engine, a, b) : StdDistributions.uniformFloat(engine, a, b));
            }
        }
    }

    private void store(long i, double v) {
        if (dtype == DType.F32) {
            out.setAtIndex(JAVA_FLOAT, i, (float) v);
        } else {
            Elements.setDouble(out, i, dtype, v);
        }
    }
}
