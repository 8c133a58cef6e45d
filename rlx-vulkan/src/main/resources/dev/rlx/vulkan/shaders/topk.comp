// Top-k along an axis by repeated selection: one invocation per line (outer o, inner n) finds the k elements
// in order, each the first in sort order after the previous one (LARGEST: descending; else ascending; ties to
// the smaller index; NaN sorts first either way). Macros: A_* type, LARGEST.
// Arguments: i[0] lines, i[1] axis length, i[2] inner, i[3] k. ptr[0] values, ptr[1] indices (i64), ptr[2] in.
layout(local_size_x = LOCAL) in;

// Whether (a, ia) sorts before (b, ib).
bool before(A_C a, int ia, A_C b, int ib) {
    bool an = isNan(a), bn = isNan(b);
    if (an || bn) { // NaN is the extreme either way: first for largest and for smallest
        return an && (!bn || ia < ib);
    }
#ifdef LARGEST
    return a > b || (a == b && ia < ib);
#else
    return a < b || (a == b && ia < ib);
#endif
}

void main() {
    uint line = linearIndex();
    if (line >= uint(ARG(0))) {
        return;
    }
    int len = ARG(1), inner = ARG(2), k = ARG(3);
    int o = int(line / uint(inner));
    int n = int(line % uint(inner));
    int base = o * len * inner + n;
    int outBase = o * k * inner + n;
    A_C prev = A_C(0);
    int prevAt = -1;
    for (int r = 0; r < k; r++) {
        A_C best = A_C(0);
        int at = -1;
        for (int i = 0; i < len; i++) {
            A_C x = A_LOAD(BUF(A_S, 2).v[base + i * inner]);
            if (prevAt >= 0 && !before(prev, prevAt, x, i)) {
                continue;
            }
            if (at < 0 || before(x, i, best, at)) {
                best = x;
                at = i;
            }
        }
        BUF(A_S, 0).v[outBase + r * inner] = A_STORE(best);
        BUF(int64_t, 1).v[outBase + r * inner] = int64_t(at);
        prev = best;
        prevAt = at;
    }
}
