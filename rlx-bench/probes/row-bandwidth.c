/*
 * How close native AVX-512 code gets to a memory copy on the CPU suite's bandwidth-bound row ops (4096 x 4096
 * f32, one thread), with and without software prefetch: the reference for RLX's softmax / RMS norm ratios,
 * since Java can emit neither PREFETCHT0 nor PREFETCHW. Same loop structure as RLX's kernels (RowsF32):
 * RMS norm normalises row r while summing the squares of row r + 1; softmax's exp pass over row r also finds
 * row r + 1's max, then a scaling pass. Not built by Maven; run by hand:
 *
 *   gcc -O3 -march=native -o /tmp/row-bandwidth rlx-bench/probes/row-bandwidth.c -lm && /tmp/row-bandwidth
 *
 * Prints each op's median time over 30 rounds (all ops alternated in every round) and its ratio to memcpy.
 */
#include <immintrin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define R 4096
#define C 4096
#define AHEAD 1024 /* prefetch distance, floats */

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void prefetch(const float *read, float *write) {
    _mm_prefetch((const char *) read, _MM_HINT_T0);
    _m_prefetchw(write);
}

static void affine(const float *x, float *y) {
    __m512 a = _mm512_set1_ps(0.5f), b = _mm512_set1_ps(1.0f);
    for (long i = 0; i < (long) R * C; i += 16) {
        _mm512_store_ps(y + i, _mm512_fmadd_ps(_mm512_load_ps(x + i), a, b));
    }
}

static float sum_squares(const float *x) {
    __m512 a = _mm512_setzero_ps();
    for (int j = 0; j < C; j += 16) {
        __m512 u = _mm512_load_ps(x + j);
        a = _mm512_fmadd_ps(u, u, a);
    }
    return _mm512_reduce_add_ps(a);
}

static void rms_norm(const float *x, float *y, const float *g, int pf) {
    float ss = sum_squares(x);
    for (int r = 0; r < R; r++) {
        const float *xr = x + (long) r * C, *next = r + 1 < R ? xr + C : xr;
        float *yr = y + (long) r * C;
        __m512 s = _mm512_set1_ps(1 / sqrtf(ss / C + 1e-6f)), a = _mm512_setzero_ps();
        for (int j = 0; j < C; j += 16) {
            if (pf) prefetch(next + j + AHEAD, yr + j + AHEAD); /* one line each */
            _mm512_store_ps(yr + j, _mm512_mul_ps(_mm512_mul_ps(_mm512_load_ps(xr + j), s), _mm512_load_ps(g + j)));
            __m512 u = _mm512_load_ps(next + j);
            a = _mm512_fmadd_ps(u, u, a);
        }
        ss = _mm512_reduce_add_ps(a);
    }
}

/* exp(x) for x <= 0: Cody-Waite reduction, degree-6 polynomial, 2^k by VSCALEFPS */
static inline __m512 exp_nonpositive(__m512 x) {
    __m512 k = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504f)), 0);
    __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(k, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 p = _mm512_fmadd_ps(r, _mm512_set1_ps(1.3814593033e-3f), _mm512_set1_ps(8.3687083625e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1668387524e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666520702e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.9999993452e-1f));
    p = _mm512_add_ps(_mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r), _mm512_set1_ps(1));
    return _mm512_scalef_ps(p, k);
}

static float row_max(const float *x) {
    __m512 m = _mm512_set1_ps(-INFINITY);
    for (int j = 0; j < C; j += 16) m = _mm512_max_ps(m, _mm512_load_ps(x + j));
    return _mm512_reduce_max_ps(m);
}

static void softmax(const float *x, float *y, int pf) {
    float max = row_max(x);
    for (int r = 0; r < R; r++) {
        const float *xr = x + (long) r * C, *next = r + 1 < R ? xr + C : xr;
        float *yr = y + (long) r * C;
        __m512 sum = _mm512_setzero_ps(), m = _mm512_set1_ps(-INFINITY), shift = _mm512_set1_ps(max);
        for (int j = 0; j < C; j += 16) {
            if (pf) prefetch(next + j + AHEAD, yr + j + AHEAD); /* one line each */
            __m512 e = exp_nonpositive(_mm512_sub_ps(_mm512_load_ps(xr + j), shift));
            _mm512_store_ps(yr + j, e);
            sum = _mm512_add_ps(sum, e);
            m = _mm512_max_ps(m, _mm512_load_ps(next + j));
        }
        __m512 inv = _mm512_set1_ps(1 / _mm512_reduce_add_ps(sum));
        for (int j = 0; j < C; j += 16) _mm512_store_ps(yr + j, _mm512_mul_ps(_mm512_load_ps(yr + j), inv));
        max = _mm512_reduce_max_ps(m);
    }
}

static int by_value(const void *a, const void *b) {
    double d = *(const double *) a - *(const double *) b;
    return d < 0 ? -1 : d > 0;
}

int main(void) {
    /* row AHEAD floats past the end is prefetched, never read */
    float *x = aligned_alloc(64, ((long) R * C + 2 * AHEAD) * 4), *y = aligned_alloc(64, ((long) R * C + 2 * AHEAD) * 4);
    float *g = aligned_alloc(64, C * 4);
    srand(1);
    for (long i = 0; i < (long) R * C; i++) { x[i] = rand() / (float) RAND_MAX * 2 - 1; y[i] = 1; }
    for (int j = 0; j < C; j++) g[j] = 1.1f;
    enum { OPS = 6, ROUNDS = 30 };
    const char *names[OPS] = {"memcpy", "x*0.5+1", "rms norm", "rms norm + prefetch", "softmax", "softmax + prefetch"};
    double t[OPS][ROUNDS];
    for (int round = 0; round < ROUNDS + 5; round++) {
        for (int op = 0; op < OPS; op++) {
            double t0 = now_ms();
            switch (op) {
                case 0: memcpy(y, x, (long) R * C * 4); break;
                case 1: affine(x, y); break;
                case 2: rms_norm(x, y, g, 0); break;
                case 3: rms_norm(x, y, g, 1); break;
                case 4: softmax(x, y, 0); break;
                case 5: softmax(x, y, 1); break;
            }
            if (round >= 5) t[op][round - 5] = now_ms() - t0;
        }
    }
    double copy = 0;
    for (int op = 0; op < OPS; op++) {
        qsort(t[op], ROUNDS, sizeof(double), by_value);
        double median = t[op][ROUNDS / 2];
        if (op == 0) copy = median;
        printf("%-22s %6.2f ms  %.2fx of memcpy's rate\n", names[op], median, copy / median);
    }
    return 0;
}
