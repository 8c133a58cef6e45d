// ONNX Gather along an axis: out[o, i, n] = data[o, idx[i], n] over outer o, index i and inner n, copying
// raw elements (T). Negative indices count from the end; an index outside the axis writes zero.
// Macros: T raw element type, I_S / I_C index type. Arguments: i[0] outputs, i[1] indices count,
// i[2] inner size, i[3] axis size. ptr[0] out, ptr[1] data, ptr[2] indices.
KERNEL {
    u64 idx = linearIndex();
    if (idx >= (u64) (uint) ARG(0)) {
        return;
    }
    int nIdx = ARG(1), inner = ARG(2), axis = ARG(3);
    int n = (int) (idx % (uint) inner);
    int rest = (int) (idx / (uint) inner);
    int i = rest % nIdx;
    int o = rest / nIdx;
    i64 at = (i64) BUF(I_S, 2)[i];
    if (at < 0) {
        at += axis;
    }
    if (at < 0 || at >= axis) {
        BUF(T, 0)[idx] = T(0);
        return;
    }
    BUF(T, 0)[idx] = BUF(T, 1)[((i64) o * axis + at) * inner + n];
}
