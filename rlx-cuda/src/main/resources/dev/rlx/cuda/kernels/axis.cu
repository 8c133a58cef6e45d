// Scans along one axis: one thread per line (outer o, inner n) walks the axis in order.
// ARGMAX / ARGMIN: the I64 index of the extreme (ties to the smaller index, the first NaN wins).
// CUMSUM: prefix sums (EXCLUSIVE starts from 0, REVERSE walks from the end) accumulated in ACC.
// Macros: A_* and OUT_* types, ACC, one of ARGMAX / ARGMIN / CUMSUM, REVERSE_INDEX(j, len).
// Arguments: i[0] lines (outer x inner), i[1] axis length, i[2] inner. ptr[0] out, ptr[1] in.
KERNEL {
    u64 line = linearIndex();
    if (line >= (u64) (uint) ARG(0)) {
        return;
    }
    int len = ARG(1), inner = ARG(2);
    int o = (int) (line / (uint) inner);
    int n = (int) (line % (uint) inner);
    i64 base = (i64) o * len * inner + n;
#if defined(ARGMAX) || defined(ARGMIN)
    A_C best = A_LOAD(BUF(A_S, 1)[base]);
    int at = 0;
    for (int i = 1; i < len; i++) {
        A_C x = A_LOAD(BUF(A_S, 1)[base + (i64) i * inner]);
        if (rlxIsNan(best)) {
            break;
        }
#ifdef ARGMAX
        if (rlxIsNan(x) || x > best) {
#else
        if (rlxIsNan(x) || x < best) {
#endif
            best = x;
            at = i;
        }
    }
    BUF(i64, 0)[line] = (i64) at;
#else
    ACC acc = ACC(0);
#ifdef COMPENSATED
    ACC lost = ACC(0);
#endif
    for (int j = 0; j < len; j++) {
        int i = REVERSE_INDEX(j, len);
        ACC x = ACC(A_LOAD(BUF(A_S, 1)[base + (i64) i * inner]));
#ifdef EXCLUSIVE
        BUF(OUT_S, 0)[base + (i64) i * inner] = OUT_STORE(OUT_C(acc));
#endif
#ifdef COMPENSATED
        ACC y = x - lost;
        ACC t = acc + y;
        lost = (t - acc) - y;
        acc = t;
#else
        acc += x;
#endif
#ifndef EXCLUSIVE
        BUF(OUT_S, 0)[base + (i64) i * inner] = OUT_STORE(OUT_C(acc));
#endif
    }
#endif
}
