// Element functions with the IR's semantics where CUDA's differ or are missing (NaN propagation, floored modulo,
// integer division by zero, saturating casts, pow on negative bases), overloaded per compute type. Kernels are
// compiled with -fmad=false and IEEE division and square root, so f32 results are correctly rounded where IEEE
// says so.
#ifndef RLX_MATH_CUH
#define RLX_MATH_CUH

#define RLX_F inline __device__ float
#define RLX_D inline __device__ double

__device__ inline bool rlxIsNan(float x) { return x != x; }
__device__ inline bool rlxIsNan(double x) { return x != x; }
__device__ inline bool rlxIsNan(int x) { return false; }
__device__ inline bool rlxIsNan(uint x) { return false; }
__device__ inline bool rlxIsNan(i64 x) { return false; }

RLX_F rlxMax(float a, float b) { return rlxIsNan(a) || rlxIsNan(b) ? a + b : fmaxf(a, b); }
RLX_F rlxMin(float a, float b) { return rlxIsNan(a) || rlxIsNan(b) ? a + b : fminf(a, b); }
RLX_D rlxMax(double a, double b) { return rlxIsNan(a) || rlxIsNan(b) ? a + b : fmax(a, b); }
RLX_D rlxMin(double a, double b) { return rlxIsNan(a) || rlxIsNan(b) ? a + b : fmin(a, b); }
__device__ inline int rlxMax(int a, int b) { return a > b ? a : b; }
__device__ inline int rlxMin(int a, int b) { return a < b ? a : b; }
__device__ inline uint rlxMax(uint a, uint b) { return a > b ? a : b; }
__device__ inline uint rlxMin(uint a, uint b) { return a < b ? a : b; }
__device__ inline i64 rlxMax(i64 a, i64 b) { return a > b ? a : b; }
__device__ inline i64 rlxMin(i64 a, i64 b) { return a < b ? a : b; }

// Floored modulo, the sign of the divisor; integer b == 0 gives 0.
RLX_F rlxMod(float a, float b) {
    float r = fmodf(a, b);
    return r != 0.0f && ((r < 0.0f) != (b < 0.0f)) ? r + b : r;
}
RLX_D rlxMod(double a, double b) {
    double r = fmod(a, b);
    return r != 0.0 && ((r < 0.0) != (b < 0.0)) ? r + b : r;
}
__device__ inline int rlxMod(int a, int b) {
    if (b == 0 || b == -1) return 0;
    int r = a % b;
    return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}
__device__ inline uint rlxMod(uint a, uint b) { return b == 0u ? 0u : a % b; }
__device__ inline i64 rlxMod(i64 a, i64 b) {
    if (b == 0 || b == -1) return 0;
    i64 r = a % b;
    return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}

// Division; integers truncate toward zero, b == 0 gives 0 and MIN / -1 wraps (as Java's).
RLX_F rlxDiv(float a, float b) { return a / b; }
RLX_D rlxDiv(double a, double b) { return a / b; }
__device__ inline int rlxDiv(int a, int b) { return b == 0 ? 0 : (b == -1 ? (int) (0u - (uint) a) : a / b); }
__device__ inline uint rlxDiv(uint a, uint b) { return b == 0u ? 0u : a / b; }
__device__ inline i64 rlxDiv(i64 a, i64 b) {
    return b == 0 ? 0 : (b == -1 ? (i64) (0ull - (u64) a) : a / b);
}

// pow as Java's Math.pow (CUDA's powf already follows C99 Annex F: x < 0 with integral y, y == 0).
RLX_F rlxPow(float x, float y) { return y == 0.0f ? 1.0f : powf(x, y); }
RLX_D rlxPow(double x, double y) { return y == 0.0 ? 1.0 : pow(x, y); }
__device__ inline int rlxPow(int x, int y) {
    if (y < 0) return x == 1 ? 1 : (x == -1 ? ((y & 1) ? -1 : 1) : 0);
    int r = 1;
    while (y > 0) { if (y & 1) r *= x; x *= x; y >>= 1; }
    return r;
}
__device__ inline i64 rlxPow(i64 x, i64 y) {
    if (y < 0) return x == 1 ? 1 : (x == -1 ? ((y & 1) ? -1 : 1) : 0);
    i64 r = 1;
    while (y > 0) { if (y & 1) r *= x; x *= x; y >>= 1; }
    return r;
}
__device__ inline uint rlxPow(uint x, uint y) {
    uint r = 1u;
    while (y > 0u) { if (y & 1u) r *= x; x *= x; y >>= 1; }
    return r;
}

RLX_F rlxExp(float x) { return expf(x); }
RLX_D rlxExp(double x) { return exp(x); }
RLX_F rlxLog(float x) { return logf(x); }
RLX_D rlxLog(double x) { return log(x); }
RLX_F rlxSqrt(float x) { return sqrtf(x); }
RLX_D rlxSqrt(double x) { return sqrt(x); }
RLX_F rlxSin(float x) { return sinf(x); }
RLX_D rlxSin(double x) { return sin(x); }
RLX_F rlxCos(float x) { return cosf(x); }
RLX_D rlxCos(double x) { return cos(x); }
RLX_F rlxTan(float x) { return tanf(x); }
RLX_D rlxTan(double x) { return tan(x); }
RLX_F rlxAtan(float x) { return atanf(x); }
RLX_D rlxAtan(double x) { return atan(x); }
RLX_F rlxErf(float x) { return erff(x); }
RLX_D rlxErf(double x) { return erf(x); }
RLX_F rlxTanh(float x) { return tanhf(x); }
RLX_D rlxTanh(double x) { return tanh(x); }
RLX_F rlxFloor(float x) { return floorf(x); }
RLX_D rlxFloor(double x) { return floor(x); }
RLX_F rlxCeil(float x) { return ceilf(x); }
RLX_D rlxCeil(double x) { return ceil(x); }
// Round half to even.
RLX_F rlxRoundEven(float x) { return rintf(x); }
RLX_D rlxRoundEven(double x) { return rint(x); }

RLX_F rlxSign(float x) { return rlxIsNan(x) ? x : (x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : 0.0f)); }
RLX_D rlxSign(double x) { return rlxIsNan(x) ? x : (x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : 0.0)); }
__device__ inline int rlxSign(int x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }
__device__ inline uint rlxSign(uint x) { return x == 0u ? 0u : 1u; }
__device__ inline i64 rlxSign(i64 x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }

__device__ inline int rlxAbs(int x) { return x < 0 ? (int) (0u - (uint) x) : x; }
__device__ inline uint rlxAbs(uint x) { return x; }
__device__ inline i64 rlxAbs(i64 x) { return x < 0 ? (i64) (0ull - (u64) x) : x; }
RLX_F rlxAbs(float x) { return fabsf(x); }
RLX_D rlxAbs(double x) { return fabs(x); }

// Float to integer: truncate toward zero, saturate, NaN gives 0 (bounds exactly representable in the source type).
__device__ inline int rlxToInt(float x, float lo, float hi) {
    if (rlxIsNan(x)) return 0;
    float c = fminf(fmaxf(truncf(x), lo), hi);
    if (c >= 2147483648.0f) return 2147483647;
    return (int) c;
}
__device__ inline uint rlxToUint(float x, float hi) {
    if (rlxIsNan(x) || x <= 0.0f) return 0u;
    if (x >= 4294967296.0f) return 4294967295u;
    return (uint) fminf(truncf(x), hi);
}
__device__ inline i64 rlxToI64(float x) {
    if (rlxIsNan(x)) return 0;
    if (x >= 9223372036854775807.0f) return 9223372036854775807l;
    if (x <= -9223372036854775808.0f) return (i64) (1ull << 63);
    return (i64) x;
}
__device__ inline int rlxToInt(double x, double lo, double hi) {
    if (rlxIsNan(x)) return 0;
    return (int) fmin(fmax(trunc(x), lo), hi);
}
__device__ inline uint rlxToUint(double x, double hi) {
    if (rlxIsNan(x) || x <= 0.0) return 0u;
    return (uint) fmin(trunc(x), hi);
}
__device__ inline i64 rlxToI64(double x) {
    if (rlxIsNan(x)) return 0;
    if (x >= 9223372036854775807.0) return 9223372036854775807l;
    if (x <= -9223372036854775808.0) return (i64) (1ull << 63);
    return (i64) x;
}

// The lowest and highest values of each compute type (reduction starts).
template <typename T> __device__ inline T rlxLowest();
template <> __device__ inline float rlxLowest<float>() { return __int_as_float(0xff800000); }
template <> __device__ inline double rlxLowest<double>() { return __longlong_as_double((long long) 0xfff0000000000000ull); }
template <> __device__ inline int rlxLowest<int>() { return -2147483647 - 1; }
template <> __device__ inline uint rlxLowest<uint>() { return 0u; }
template <> __device__ inline i64 rlxLowest<i64>() { return (i64) (1ull << 63); }
template <typename T> __device__ inline T rlxHighest();
template <> __device__ inline float rlxHighest<float>() { return __int_as_float(0x7f800000); }
template <> __device__ inline double rlxHighest<double>() { return __longlong_as_double(0x7ff0000000000000ll); }
template <> __device__ inline int rlxHighest<int>() { return 2147483647; }
template <> __device__ inline uint rlxHighest<uint>() { return 4294967295u; }
template <> __device__ inline i64 rlxHighest<i64>() { return 9223372036854775807l; }

#undef RLX_F
#undef RLX_D
#endif
