// Reduction over a set of axes: one invocation per output element folds the reduced sub-block in order (so the
// result does not depend on the device's thread count). Macros: A_* and OUT_* types, ACC accumulator type,
// INIT, STEP(acc, x), FINISH(acc, count); COMPENSATED sums floats with Kahan's compensation.
// Arguments: i[0] outputs, i[1] kept rank, i[2..9] kept dims, i[10..17] input strides of kept dims,
// i[18] reduced rank, i[19..26] reduced dims, i[27..34] input strides of reduced dims, i[35] reduced count.
// ptr[0] out, ptr[1] in.
layout(local_size_x = LOCAL) in;

void main() {
    uint idx = linearIndex();
    if (idx >= uint(ARG(0))) {
        return;
    }
    uint rem = idx;
    int base = 0;
    for (int d = ARG(1) - 1; d >= 0; d--) {
        uint dim = uint(ARG(2 + d));
        base += int(rem % dim) * ARG(10 + d);
        rem /= dim;
    }
    int count = ARG(35);
    int rr = ARG(18);
    ACC acc = INIT;
#ifdef COMPENSATED
    ACC lost = ACC(0);
#endif
    for (int j = 0; j < count; j++) {
        int r = j;
        int off = base;
        for (int d = rr - 1; d >= 0; d--) {
            int dim = ARG(19 + d);
            off += (r % dim) * ARG(27 + d);
            r /= dim;
        }
        ACC x = ACC(A_LOAD(BUF(A_S, 1).v[off]));
#ifdef COMPENSATED
        ACC y = x - lost;
        ACC t = acc + y;
        lost = (t - acc) - y;
        acc = t;
#else
        acc = STEP(acc, x);
#endif
    }
    BUF(OUT_S, 0).v[idx] = OUT_STORE(OUT_C(FINISH(acc, count)));
}
