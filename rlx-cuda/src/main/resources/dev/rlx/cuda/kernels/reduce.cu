// Reduction over a set of axes. Macros: A_* and OUT_* types, ACC accumulator type, INIT, STEP(acc, x),
// FINISH(acc, count); COMPENSATED sums floats with Kahan's compensation (kernels compile with -fmad=false, so
// the compensation is not contracted away). Without PARALLEL one thread per output folds its reduced sub-block
// in order; with PARALLEL one block of LOCAL threads per output: each thread folds every LOCAL-th element, then a
// tree in shared memory combines them. Either way the order is fixed, so every run gives the same bits.
// Arguments: i[0] outputs, i[1] kept rank, i[2..9] kept dims, i[10..17] input strides of kept dims,
// i[18] reduced rank, i[19..26] reduced dims, i[27..34] input strides of reduced dims, i[35] reduced count.
// ptr[0] out, ptr[1] in.
__device__ static inline i64 inputOffset(const Args& args, i64 base, int j, int rr) {
    i64 off = base;
    for (int d = rr - 1; d >= 0; d--) {
        int dim = ARG(19 + d);
        off += (i64) (j % dim) * ARG(27 + d);
        j /= dim;
    }
    return off;
}

__device__ static inline ACC fold(const Args& args, i64 base, int first, int step, int count, int rr) {
    ACC acc = INIT;
#ifdef COMPENSATED
    ACC lost = ACC(0);
#endif
    for (int j = first; j < count; j += step) {
        ACC x = ACC(A_LOAD(BUF(A_S, 1)[rr == 1 ? base + (i64) j * ARG(27) : inputOffset(args, base, j, rr)]));
#ifdef COMPENSATED
        ACC y = x - lost;
        ACC t = acc + y;
        lost = (t - acc) - y;
        acc = t;
#else
        acc = STEP(acc, x);
#endif
    }
    return acc;
}

KERNEL {
#ifdef PARALLEL
    u64 idx = blockIdx.x;
#else
    u64 idx = linearIndex();
#endif
    if (idx >= (u64) (uint) ARG(0)) {
        return;
    }
    uint rem = (uint) idx;
    i64 base = 0;
    for (int d = ARG(1) - 1; d >= 0; d--) {
        uint dim = (uint) ARG(2 + d);
        base += (i64) (rem % dim) * ARG(10 + d);
        rem /= dim;
    }
    int count = ARG(35);
    int rr = ARG(18);
#ifdef PARALLEL
    __shared__ ACC partial[LOCAL];
    uint t = threadIdx.x;
    partial[t] = fold(args, base, (int) t, LOCAL, count, rr);
    __syncthreads();
    for (uint s = LOCAL / 2; s > 0; s >>= 1) {
        if (t < s) {
            partial[t] = STEP(partial[t], partial[t + s]);
        }
        __syncthreads();
    }
    if (t == 0) {
        BUF(OUT_S, 0)[idx] = OUT_STORE(OUT_C(FINISH(partial[0], count)));
    }
#else
    BUF(OUT_S, 0)[idx] = OUT_STORE(OUT_C(FINISH(fold(args, base, 0, 1, count, rr), count)));
#endif
}
