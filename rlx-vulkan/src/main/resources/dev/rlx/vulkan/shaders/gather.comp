// ONNX Gather along an axis: out[o, i, n] = data[o, idx[i], n] over outer o, index i and inner n, copying
// raw elements (T). Negative indices count from the end; an index outside the axis writes zero.
// Macros: T raw element type, I_S / I_C index type. Arguments: i[0] outputs, i[1] indices count,
// i[2] inner size, i[3] axis size. ptr[0] out, ptr[1] data, ptr[2] indices.
layout(local_size_x = LOCAL) in;

void main() {
    uint idx = linearIndex();
    if (idx >= uint(ARG(0))) {
        return;
    }
    int nIdx = ARG(1), inner = ARG(2), axis = ARG(3);
    int n = int(idx % uint(inner));
    int rest = int(idx / uint(inner));
    int i = rest % nIdx;
    int o = rest / nIdx;
    int at = int(BUF(I_S, 2).v[i]);
    if (at < 0) {
        at += axis;
    }
    if (at < 0 || at >= axis) {
        BUF(T, 0).v[idx] = T(0);
        return;
    }
    BUF(T, 0).v[idx] = BUF(T, 1).v[(o * axis + int(at)) * inner + n];
}
