// Reduction over a set of axes. Macros: A_* and OUT_* types, ACC accumulator type, INIT, STEP(acc, x),
// FINISH(acc, count); COMPENSATED sums floats with Kahan's compensation. Without PARALLEL one invocation per
// output folds its reduced sub-block in order; with PARALLEL one workgroup per output: each of its LOCAL
// invocations folds every LOCAL-th element, then a tree in shared memory combines them (long reductions, and
// short loops per invocation: lavapipe stops a loop after 65,535 iterations). Either way the order is fixed,
// so the result does not depend on the device.
// Arguments: i[0] outputs, i[1] kept rank, i[2..9] kept dims, i[10..17] input strides of kept dims,
// i[18] reduced rank, i[19..26] reduced dims, i[27..34] input strides of reduced dims, i[35] reduced count.
// ptr[0] out, ptr[1] in.
layout(local_size_x = LOCAL) in;

#ifdef PARALLEL
shared ACC partial[LOCAL];
#endif

int inputOffset(int base, int j, int rr) {
    int off = base;
    for (int d = rr - 1; d >= 0; d--) {
        int dim = ARG(19 + d);
        off += (j % dim) * ARG(27 + d);
        j /= dim;
    }
    return off;
}

ACC fold(int base, int first, int step, int count, int rr) {
    precise ACC acc = INIT;
#ifdef COMPENSATED
    precise ACC lost = ACC(0);
#endif
    for (int j = first; j < count; j += step) {
        ACC x = ACC(A_LOAD(BUF(A_S, 1).v[rr == 1 ? base + j * ARG(27) : inputOffset(base, j, rr)]));
#ifdef COMPENSATED
        // precise: the compiler must not simplify (t - acc) - y to 0 (NIR does, for values not marked exact)
        precise ACC y = x - lost;
        precise ACC t = acc + y;
        lost = (t - acc) - y;
        acc = t;
#else
        acc = STEP(acc, x);
#endif
    }
    return acc;
}

void main() {
#ifdef PARALLEL
    uint idx = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
#else
    uint idx = linearIndex();
#endif
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
#ifdef PARALLEL
    uint t = gl_LocalInvocationID.x;
    partial[t] = fold(base, int(t), LOCAL, count, rr);
    barrier();
    for (uint s = LOCAL / 2; s > 0; s >>= 1) {
        if (t < s) {
            partial[t] = STEP(partial[t], partial[t + s]);
        }
        barrier();
    }
    if (t == 0) {
        BUF(OUT_S, 0).v[idx] = OUT_STORE(OUT_C(FINISH(partial[0], count)));
    }
#else
    BUF(OUT_S, 0).v[idx] = OUT_STORE(OUT_C(FINISH(fold(base, 0, 1, count, rr), count)));
#endif
}
