// RngUniform and RngNormal with the CPU backend's Philox stream (rlx-cpu RngKernel): one invocation per Philox
// block b, counter (b, 0, run, 0), key (k0, k1), giving elements 4b..4b+3: four uniforms low + u*(high-low), or
// two Box-Muller pairs (w0, w1), (w2, w3) each giving r*cos(2 pi u) then r*sin(2 pi u). Computed in double as the
// CPU does (precise: no fused multiply-adds the CPU does not do), then rounded to the output dtype (f16 and bf16
// through round-to-odd f32, so the double is rounded once, as the CPU's Elements.setDouble).
// Macros: OUT_* types, NORMAL for RngNormal, F64_OUT, NARROW_OUT (f16/bf16).
// With STEP_RUN the kernel is instead the one invocation that advances the executable's run counter at the
// end of each run (ptr[0]); the RNG dispatches read it when their streams advance across runs.
// Arguments: i[0] elements, i[1] blocks, i[2] k0, i[3] k1, i[4] generator (0 Philox, 1 zero), i[5] advance across
// runs, i[6] bits of low/mean, i[7] bits of high/scale. ptr[0] out, ptr[1] run counter (two uints, low first).
layout(local_size_x = LOCAL) in;

layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Counter { uint w[2]; };

#ifdef STEP_RUN
void main() {
    if (linearIndex() == 0u) {
        Counter c = Counter(PTR(0));
        uint lo = c.w[0] + 1u;
        c.w[0] = lo;
        if (lo == 0u) {
            c.w[1] += 1u;
        }
    }
}
#else

const uint M0 = 0xD2511F53u;
const uint M1 = 0xCD9E8D57u;
const uint W0 = 0x9E3779B9u;
const uint W1 = 0xBB67AE85u;

uvec4 philox(uvec4 c, uint k0, uint k1) {
    for (int round = 0; round < 10; round++) {
        if (round > 0) {
            k0 += W0;
            k1 += W1;
        }
        uint hi0, lo0, hi1, lo1;
        umulExtended(M0, c.x, hi0, lo0);
        umulExtended(M1, c.z, hi1, lo1);
        c = uvec4(hi1 ^ c.y ^ k0, lo1, hi0 ^ c.w ^ k1, lo0);
    }
    return c;
}

double unitFloat(uint w) {
    return double(w >> 8) * (1.0LF / 16777216.0LF);
}

double unitOpenBelow(uint w) {
    return double((w >> 8) + 1u) * (1.0LF / 16777216.0LF);
}

const double TWO_PI = 6.283185307179586LF;

double cosTaylor(double x) {
    precise double x2 = x * x;
    precise double p = 1.0LF / 20922789888000.0LF;
    p = p * x2 - 1.0LF / 87178291200.0LF;
    p = p * x2 + 1.0LF / 479001600.0LF;
    p = p * x2 - 1.0LF / 3628800.0LF;
    p = p * x2 + 1.0LF / 40320.0LF;
    p = p * x2 - 1.0LF / 720.0LF;
    p = p * x2 + 1.0LF / 24.0LF;
    p = p * x2 - 0.5LF;
    precise double r = p * x2 + 1.0LF;
    return r;
}

double sinTaylor(double x) {
    precise double x2 = x * x;
    precise double p = 1.0LF / 355687428096000.0LF;
    p = p * x2 - 1.0LF / 1307674368000.0LF;
    p = p * x2 + 1.0LF / 6227020800.0LF;
    p = p * x2 - 1.0LF / 39916800.0LF;
    p = p * x2 + 1.0LF / 362880.0LF;
    p = p * x2 - 1.0LF / 5040.0LF;
    p = p * x2 + 1.0LF / 120.0LF;
    p = p * x2 - 1.0LF / 6.0LF;
    precise double r = (p * x2 + 1.0LF) * x;
    return r;
}

// cos(2 pi u) for u in [0, 1), as RngKernel.cos2pi: folded exactly into [0, 1/8], then a Taylor series.
double cos2pi(double u) {
    precise double v = u;
    if (v > 0.5LF) {
        v = 1.0LF - v;
    }
    double sign = 1.0LF;
    if (v > 0.25LF) {
        v = 0.5LF - v;
        sign = -1.0LF;
    }
    precise double arg = v <= 0.125LF ? TWO_PI * v : TWO_PI * (0.25LF - v);
    precise double r = sign * (v <= 0.125LF ? cosTaylor(arg) : sinTaylor(arg));
    return r;
}

// f32 rounding of d towards odd: rounding that to f16/bf16 (to nearest even) rounds d once.
float roundToOdd(double d) {
    float f = float(d);
    if (isinf(f) || isnan(f) || double(f) == d) {
        return f;
    }
    uint u = floatBitsToUint(f);
    if (abs(double(f)) > abs(d)) {
        u -= 1u;
    }
    return uintBitsToFloat(u | 1u);
}

void store(uint i, double v) {
    if (i >= uint(ARG(0))) {
        return;
    }
#if defined(F64_OUT)
    BUF(OUT_S, 0).v[i] = v;
#elif defined(NARROW_OUT)
    BUF(OUT_S, 0).v[i] = OUT_STORE(roundToOdd(v));
#else
    BUF(OUT_S, 0).v[i] = float(v);
#endif
}

float below(float b) {
    uint u = floatBitsToUint(b);
    return b > 0.0 ? uintBitsToFloat(u - 1u) : (b < 0.0 ? uintBitsToFloat(u + 1u) : uintBitsToFloat(0x80000001u));
}

void main() {
    uint blk = linearIndex();
    if (blk >= uint(ARG(1))) {
        return;
    }
    float fa = intBitsToFloat(ARG(6));
    float fb = intBitsToFloat(ARG(7));
    double a = double(fa);
    double b = double(fb);
    uint base = 4u * blk;
    if (ARG(4) == 1) { // the zero generator: the distribution's mean
#ifdef NORMAL
        double mean = a;
#else
        precise double mean = (a + b) / 2.0LF;
#endif
        for (uint j = 0u; j < 4u; j++) {
            store(base + j, mean);
        }
        return;
    }
    uint runLo = 0u;
    uint runHi = 0u;
    if (ARG(5) != 0) {
        Counter c = Counter(PTR(1));
        runLo = c.w[0];
        runHi = c.w[1];
    }
    uvec4 w = philox(uvec4(blk, 0u, runLo, runHi), uint(ARG(2)), uint(ARG(3)));
#ifdef NORMAL
    for (uint pair = 0u; pair < 2u; pair++) {
        uint w1 = pair == 0u ? w.x : w.z;
        uint w2 = pair == 0u ? w.y : w.w;
        precise double r = sqrt(-2.0LF * rlxLogD(unitOpenBelow(w1)));
        double u = unitFloat(w2);
        precise double first = a + b * (r * cos2pi(u));
        store(base + 2u * pair, first);
        precise double v = u + 0.75LF; // sin(2 pi u) = cos(2 pi (u + 3/4)), exact for u = k * 2^-24
        precise double second = a + b * (r * cos2pi(v >= 1.0LF ? v - 1.0LF : v));
        store(base + 2u * pair + 1u, second);
    }
#else
    precise double span = b - a;
    for (uint j = 0u; j < 4u; j++) {
        precise double v = a + unitFloat(j == 0u ? w.x : j == 1u ? w.y : j == 2u ? w.z : w.w) * span;
        store(base + j, v >= b && fb > fa ? double(below(fb)) : v);
    }
#endif
}
#endif
