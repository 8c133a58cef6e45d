// Element functions with the IR's semantics where GLSL's built-ins differ (NaN propagation, floored modulo,
// integer division by zero, saturating casts). Overloaded per compute type.

float rlxMax(float a, float b) { return isnan(a) || isnan(b) ? a + b : max(a, b); }
float rlxMin(float a, float b) { return isnan(a) || isnan(b) ? a + b : min(a, b); }
double rlxMax(double a, double b) { return isnan(a) || isnan(b) ? a + b : max(a, b); }
double rlxMin(double a, double b) { return isnan(a) || isnan(b) ? a + b : min(a, b); }
int rlxMax(int a, int b) { return max(a, b); }
int rlxMin(int a, int b) { return min(a, b); }
uint rlxMax(uint a, uint b) { return max(a, b); }
uint rlxMin(uint a, uint b) { return min(a, b); }
int64_t rlxMax(int64_t a, int64_t b) { return a > b ? a : b; }
int64_t rlxMin(int64_t a, int64_t b) { return a < b ? a : b; }

// Floored modulo, the sign of the divisor; integer b == 0 gives 0.
float rlxMod(float a, float b) {
    float r = a - b * trunc(a / b);
    return r != 0.0 && ((r < 0.0) != (b < 0.0)) ? r + b : r;
}
double rlxMod(double a, double b) {
    double r = a - b * trunc(a / b);
    return r != 0.0 && ((r < 0.0) != (b < 0.0)) ? r + b : r;
}
int rlxMod(int a, int b) {
    if (b == 0) return 0;
    int r = a - (a / b) * b;
    return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}
uint rlxMod(uint a, uint b) { return b == 0u ? 0u : a % b; }
int64_t rlxMod(int64_t a, int64_t b) {
    if (b == 0) return 0;
    int64_t r = a - (a / b) * b;
    return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}

// Division; integers truncate toward zero and b == 0 gives 0.
// GLSL allows 2.5 ulp for a / b (drivers multiply by a reciprocal): one residual step corrects the quotient to
// the IEEE result, so quantisation that rounds x / scale agrees with the CPU.
float rlxDiv(float a, float b) {
    float q = a / b;
    if (isinf(q) || isnan(q) || isinf(b) || q == 0.0) return q;
    precise float r = fma(-q, b, a);
    return q + r / b;
}
double rlxDiv(double a, double b) { return a / b; }
int rlxDiv(int a, int b) { return b == 0 ? 0 : (b == -1 ? -a : a / b); }
uint rlxDiv(uint a, uint b) { return b == 0u ? 0u : a / b; }
int64_t rlxDiv(int64_t a, int64_t b) { return b == 0 ? 0 : (b == -1 ? -a : a / b); }

// pow as Java's Math.pow on the cases GLSL leaves undefined (x < 0 with an integral y, y == 0).
float rlxPow(float x, float y) {
    if (y == 0.0) return 1.0;
    if (x < 0.0 && y == trunc(y)) {
        float m = pow(-x, y);
        return mod(abs(y), 2.0) == 1.0 ? -m : m;
    }
    if (x == 0.0) return y > 0.0 ? 0.0 : 1.0 / 0.0;
    return pow(x, y);
}
// Double-precision exp and log (GLSL has them in single precision only): range reduction to |r| <= ln2 / 2 and a
// Taylor series for exp; frexp and the atanh series of log((1 + s) / (1 - s)) for log. Both within a few ulp.
double rlxExpD(double x) {
    if (isnan(x)) return x;
    if (x > 709.782712893384) return double(uintBitsToFloat(0x7f800000u));
    if (x < -745.1332191019411) return 0.0;
    const double LN2 = 0.6931471805599453094;
    int k = int(floor(x / LN2 + 0.5));
    double r = x - double(k) * 0.693147180369123816490 - double(k) * 1.90821492927058770002e-10;
    double term = 1.0;
    double sum = 1.0;
    for (int i = 1; i <= 17; i++) {
        term *= r / double(i);
        sum += term;
    }
    return ldexp(sum, k);
}

double rlxLogD(double x) {
    if (isnan(x) || x < 0.0) return x < 0.0 ? double(uintBitsToFloat(0x7fc00000u)) : x;
    if (x == 0.0) return double(uintBitsToFloat(0xff800000u));
    if (isinf(x)) return x;
    int e;
    double m = frexp(x, e);
    if (m < 0.70710678118654752440) {
        m *= 2.0;
        e -= 1;
    }
    double s = (m - 1.0) / (m + 1.0);
    double s2 = s * s;
    double term = s;
    double sum = 0.0;
    for (int i = 1; i <= 41; i += 2) {
        sum += term / double(i);
        term *= s2;
    }
    return double(e) * 0.6931471805599453094 + 2.0 * sum;
}

// pow as Math.pow: integral exponents up to 2^20 by squaring, the rest through exp(y log |x|).
double rlxPow(double x, double y) {
    if (y == 0.0) return 1.0;
    if (isnan(x) || isnan(y)) return x + y;
    bool integral = y == trunc(y);
    if (integral && abs(y) <= 1048576.0) {
        double base = y < 0.0 ? 1.0 / x : x;
        int n = int(abs(y));
        double r = 1.0;
        while (n > 0) {
            if ((n & 1) != 0) r *= base;
            base *= base;
            n >>= 1;
        }
        return r;
    }
    if (x < 0.0) {
        if (!integral) return double(uintBitsToFloat(0x7fc00000u));
        double m = rlxExpD(y * rlxLogD(-x));
        return mod(abs(y), 2.0) == 1.0 ? -m : m;
    }
    if (x == 0.0) return y > 0.0 ? 0.0 : double(uintBitsToFloat(0x7f800000u));
    return rlxExpD(y * rlxLogD(x));
}

float rlxTanh(float x) { return abs(x) > 15.0 ? sign(x) : tanh(x); }
double rlxTanh(double x) {
    if (abs(x) > 20.0) return sign(x);
    double e = rlxExpD(2.0 * x);
    return (e - 1.0) / (e + 1.0);
}

// erf: Abramowitz and Stegun 7.1.26 refined by one Newton step on erf' (|error| < 2e-7).
float rlxErf(float x) {
    float ax = abs(x);
    if (ax > 6.0) return sign(x);
    float t = 1.0 / (1.0 + 0.5 * ax);
    // Numerical Recipes' erfc (fractional error < 1.2e-7 everywhere).
    float y = t * exp(-ax * ax - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418
            + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587
            + t * (-0.82215223 + t * 0.17087277)))))))));
    float r = 1.0 - y;
    return x < 0.0 ? -r : r;
}
double rlxErf(double x) { return double(rlxErf(float(x))); }

// atan with Cephes' single-precision range reduction and polynomial (about 1 ulp; the driver's may be coarse).
float rlxAtan(float x) {
    if (isnan(x)) return x;
    float ax = abs(x);
    float base = 0.0;
    float y = ax;
    if (ax > 2.414213562373095) {
        base = 1.5707963267948966;
        y = -1.0 / ax;
    } else if (ax > 0.4142135623730950) {
        base = 0.7853981633974483;
        y = (ax - 1.0) / (ax + 1.0);
    }
    float z = y * y;
    float r = base + (((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z
            - 3.33329491539e-1) * z * y + y;
    return x < 0.0 ? -r : r;
}

float rlxSign(float x) { return isnan(x) ? x : sign(x); }
double rlxSign(double x) { return isnan(x) ? x : sign(x); }
int rlxSign(int x) { return sign(x); }
uint rlxSign(uint x) { return x == 0u ? 0u : 1u; }
int64_t rlxSign(int64_t x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }

int rlxAbs(int x) { return abs(x); }
uint rlxAbs(uint x) { return x; }
int64_t rlxAbs(int64_t x) { return x < 0 ? -x : x; }
float rlxAbs(float x) { return abs(x); }
double rlxAbs(double x) { return abs(x); }

// Float to integer: truncate toward zero, saturate, NaN gives 0 (bounds exactly representable in the source type).
int rlxToInt(float x, float lo, float hi) {
    if (isnan(x)) return 0;
    float c = clamp(trunc(x), lo, hi);
    if (c >= 2147483648.0) return 2147483647;
    return int(c);
}
uint rlxToUint(float x, float hi) {
    if (isnan(x) || x <= 0.0) return 0u;
    if (x >= 4294967296.0) return 4294967295u;
    return uint(min(trunc(x), hi));
}
int64_t rlxToI64(float x) {
    if (isnan(x)) return 0;
    if (x >= 9223372036854775807.0) return (~(int64_t(1) << 63));
    if (x <= -9223372036854775808.0) return (int64_t(1) << 63);
    return int64_t(x);
}
int rlxToInt(double x, double lo, double hi) {
    if (isnan(x)) return 0;
    return int(clamp(trunc(x), lo, hi));
}
uint rlxToUint(double x, double hi) {
    if (isnan(x) || x <= 0.0) return 0u;
    return uint(min(trunc(x), hi));
}
int64_t rlxToI64(double x) {
    if (isnan(x)) return 0;
    if (x >= 9223372036854775807.0) return (~(int64_t(1) << 63));
    if (x <= -9223372036854775808.0) return (int64_t(1) << 63);
    return int64_t(x);
}

// NaN tests for every compute type (integers are never NaN).
bool isNan(float x) { return isnan(x); }
bool isNan(double x) { return isnan(x); }
bool isNan(int x) { return false; }
bool isNan(uint x) { return false; }
bool isNan(int64_t x) { return false; }
