// Strided copy of raw elements (T, 1 to 8 bytes): for every coordinate of a shape of rank <= 8,
// out[outBase + coord . outStride] = in[inBase + coord . inStride]. Transpose, slice (any step), expand
// (stride 0), reshape and each input of a concat are one such copy.
// Arguments: i[0] n, i[1] rank, i[2..9] dims, i[10..17] input strides, i[18..25] output strides,
// i[26] input base, i[27] output base (elements). ptr[0] out, ptr[1] in.
KERNEL {
    u64 idx = linearIndex();
    if (idx >= (u64) (uint) ARG(0)) {
        return;
    }
    int rank = ARG(1);
    uint rem = (uint) idx;
    i64 src = ARG(26);
    i64 dst = ARG(27);
    for (int d = rank - 1; d >= 0; d--) {
        uint dim = (uint) ARG(2 + d);
        int coord = (int) (rem % dim);
        rem /= dim;
        src += (i64) coord * ARG(10 + d);
        dst += (i64) coord * ARG(18 + d);
    }
    BUF(T, 0)[dst] = BUF(T, 1)[src];
}
