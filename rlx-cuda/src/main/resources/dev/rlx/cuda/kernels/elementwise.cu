// Element-wise ops with NumPy broadcasting: out[i] = EXPR(a, b, c) for each of n output elements.
// Macros: ARITY (1..3), EXPR over a, b, c (in their compute types), OUT_* and A_*, B_*, C_* element types.
// Arguments: i[0] n, i[1] rank, i[2..9] output dims, i[10..17] / i[18..25] / i[26..33] element strides of
// a / b / c per output dim (0 where the operand broadcasts). ptr[0] out, ptr[1..3] a, b, c.
KERNEL {
    u64 idx = linearIndex();
    if (idx >= (u64) (uint) ARG(0)) {
        return;
    }
    int rank = ARG(1);
    uint rem = (uint) idx;
    uint oa = 0, ob = 0, oc = 0;
    for (int d = rank - 1; d >= 0; d--) {
        uint dim = (uint) ARG(2 + d);
        uint coord = rem % dim;
        rem /= dim;
        oa += coord * (uint) ARG(10 + d);
        ob += coord * (uint) ARG(18 + d);
        oc += coord * (uint) ARG(26 + d);
    }
    A_C a = A_LOAD(BUF(A_S, 1)[oa]);
#if ARITY >= 2
    B_C b = B_LOAD(BUF(B_S, 2)[ob]);
#endif
#if ARITY >= 3
    C_C c = C_LOAD(BUF(C_S, 3)[oc]);
#endif
    BUF(OUT_S, 0)[idx] = OUT_STORE(OUT_C(EXPR));
}
