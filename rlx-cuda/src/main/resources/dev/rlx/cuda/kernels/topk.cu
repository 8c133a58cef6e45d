// Top-k along an axis by repeated selection: one thread per line (outer o, inner n) finds the k elements in
// order, each the first in sort order after the previous one (LARGEST: descending; else ascending; ties to the
// smaller index; NaN sorts first either way). Macros: A_* type, LARGEST.
// Arguments: i[0] lines, i[1] axis length, i[2] inner, i[3] k. ptr[0] values, ptr[1] indices (i64), ptr[2] in.

// Whether (a, ia) sorts before (b, ib).
__device__ static inline bool before(A_C a, int ia, A_C b, int ib) {
    bool an = rlxIsNan(a), bn = rlxIsNan(b);
    if (an || bn) {
        return an && (!bn || ia < ib);
    }
#ifdef LARGEST
    return a > b || (a == b && ia < ib);
#else
    return a < b || (a == b && ia < ib);
#endif
}

KERNEL {
    uint64_t line = linearIndex();
    if (line >= (uint64_t) (uint) ARG(0)) {
        return;
    }
    int len = ARG(1), inner = ARG(2), k = ARG(3);
    int o = (int) (line / (uint) inner);
    int n = (int) (line % (uint) inner);
    int64_t base = (int64_t) o * len * inner + n;
    int64_t outBase = (int64_t) o * k * inner + n;
    A_C prev = A_C(0);
    int prevAt = -1;
    for (int r = 0; r < k; r++) {
        A_C best = A_C(0);
        int at = -1;
        for (int i = 0; i < len; i++) {
            A_C x = A_LOAD(BUF(A_S, 2)[base + (int64_t) i * inner]);
            if (prevAt >= 0 && !before(prev, prevAt, x, i)) {
                continue;
            }
            if (at < 0 || before(x, i, best, at)) {
                best = x;
                at = i;
            }
        }
        BUF(A_S, 0)[outBase + (int64_t) r * inner] = A_STORE(best);
        BUF(int64_t, 1)[outBase + (int64_t) r * inner] = (int64_t) at;
        prev = best;
        prevAt = at;
    }
}
