// A Fused element-wise program as one kernel, generated per program: FUSED_BODY holds statements that read the
// broadcast operands v0 .. v(INPUTS-1) and compute each step into the next v, FUSED_RESULT names the last.
// Every operand and the result have the element type A_* (the fusion pass fuses one float dtype).
// Arguments: i[0] n, i[1] rank, i[2..9] output dims, then 8 element strides per operand from i[10] (up to
// 7 operands: 66 of the block's 72 integers). ptr[0] out, ptr[1..7] operands.
KERNEL {
    u64 idx = linearIndex();
    if (idx >= (u64) (uint) ARG(0)) {
        return;
    }
    int rank = ARG(1);
    uint off[INPUTS];
    for (int k = 0; k < INPUTS; k++) {
        off[k] = 0;
    }
    uint rem = (uint) idx;
    for (int d = rank - 1; d >= 0; d--) {
        uint dim = (uint) ARG(2 + d);
        uint coord = rem % dim;
        rem /= dim;
        for (int k = 0; k < INPUTS; k++) {
            off[k] += coord * (uint) ARG(10 + 8 * k + d);
        }
    }
    FUSED_BODY
    BUF(A_S, 0)[idx] = A_STORE(FUSED_RESULT);
}
