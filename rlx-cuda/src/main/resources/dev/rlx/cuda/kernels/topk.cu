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
    u64 line = linearIndex();
    if (line >= (u64) (uint) ARG(0)) {
        return;
    }
    int len = ARG(1), inner = ARG(2), k = ARG(3);
    int o = (int) (line / (uint) inner);
    int n = (int) (line % (uint) inner);
    i64 base = (i64) o * len * inner + n;
    i64 outBase = (i64) o * k * inner + n;
    A_C prev = A_C(0);
    int prevAt = -1;
    for (int r = 0; r < k; r++) {
        A_C best = A_C(0);
        int at = -1;
        for (int i = 0; i < len; i++) {
            A_C x = A_LOAD(BUF(A_S, 2)[base + (i64) i * inner]);
            if (prevAt >= 0 && !before(prev, prevAt, x, i)) {
                continue;
            }
            if (at < 0 || before(x, i, best, at)) {
                best = x;
                at = i;
            }
        }
        BUF(A_S, 0)[outBase + (i64) r * inner] = A_STORE(best);
        BUF(i64, 1)[outBase + (i64) r * inner] = (i64) at;
        prev = best;
        prevAt = at;
    }
}
