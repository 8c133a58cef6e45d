// Scans along one axis: one invocation per line (outer o, inner n) walks the axis in order.
// ARGMAX / ARGMIN: the I64 index of the extreme (ties to the smaller index, the first NaN wins).
// CUMSUM: prefix sums (EXCLUSIVE starts from 0, REVERSE walks from the end) accumulated in ACC.
// Macros: A_* and OUT_* types, ACC, one of ARGMAX / ARGMIN / CUMSUM.
// Arguments: i[0] lines (outer x inner), i[1] axis length, i[2] inner. ptr[0] out, ptr[1] in.
layout(local_size_x = LOCAL) in;

void main() {
    uint line = linearIndex();
    if (line >= uint(ARG(0))) {
        return;
    }
    int len = ARG(1), inner = ARG(2);
    int o = int(line / uint(inner));
    int n = int(line % uint(inner));
    int base = o * len * inner + n;
#if defined(ARGMAX) || defined(ARGMIN)
    A_C best = A_LOAD(BUF(A_S, 1).v[base]);
    int at = 0;
    for (int i = 1; i < len; i++) {
        A_C x = A_LOAD(BUF(A_S, 1).v[base + i * inner]);
        if (isNan(best)) {
            break;
        }
#ifdef ARGMAX
        if (isNan(x) || x > best) {
#else
        if (isNan(x) || x < best) {
#endif
            best = x;
            at = i;
        }
    }
    BUF(int64_t, 0).v[line] = int64_t(at);
#else
    precise ACC acc = ACC(0);
    precise ACC lost = ACC(0); // Kahan's compensation (COMPENSATED floats): each prefix is close to the exact sum
    for (int j = 0; j < len; j++) {
        int i = REVERSE_INDEX(j, len);
        ACC x = ACC(A_LOAD(BUF(A_S, 1).v[base + i * inner]));
#ifdef EXCLUSIVE
        BUF(OUT_S, 0).v[base + i * inner] = OUT_STORE(OUT_C(acc));
#endif
#ifdef COMPENSATED
        // precise: the compiler must not simplify (t - acc) - y to 0 (NIR does, for values not marked exact)
        precise ACC y = x - lost;
        precise ACC t = acc + y;
        lost = (t - acc) - y;
        acc = t;
#else
        acc += x;
#endif
#ifndef EXCLUSIVE
        BUF(OUT_S, 0).v[base + i * inner] = OUT_STORE(OUT_C(acc));
#endif
    }
#endif
}
