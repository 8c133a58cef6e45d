// A Fused element-wise program, generated per program: the compiler defines FUSED_BODY, statements that read
// the broadcast operands v0 .. v(INPUTS-1) and compute each step into the next v, and FUSED_RESULT, the last.
// Every operand and the result have the element type A_* (the fusion pass fuses one float dtype).
// Arguments: i[0] n, i[1] rank, i[2..9] output dims, then 8 element strides per operand from i[10].
// ptr[0] out, ptr[1..7] operands.
layout(local_size_x = LOCAL) in;

void main() {
    uint idx = linearIndex();
    int n = ARG(0);
    if (idx >= uint(n)) {
        return;
    }
    int rank = ARG(1);
    uint off[INPUTS];
    for (int k = 0; k < INPUTS; k++) {
        off[k] = 0;
    }
    uint rem = idx;
    for (int d = rank - 1; d >= 0; d--) {
        uint dim = uint(ARG(2 + d));
        uint coord = rem % dim;
        rem /= dim;
        for (int k = 0; k < INPUTS; k++) {
            off[k] += coord * uint(ARG(10 + 8 * k + d));
        }
    }
    FUSED_BODY
    BUF(A_S, 0).v[idx] = A_STORE(FUSED_RESULT);
}
