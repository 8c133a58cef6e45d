// ScatterElements with add, gathered per output so no two threads write one element (deterministic, no
// atomics): out[p] = data[p] + the sum, in index order, of updates[q] over the positions q that share p's
// coordinates off the axis and whose index (negative counts from the end) is p's coordinate on it.
// Macros: A_* (data, updates) and OUT_* types, ACC, I_S / I_C index type.
// Arguments: i[0] outputs, i[1] rank, i[2] axis, i[3..10] data dims, i[11..18] indices dims.
// ptr[0] out, ptr[1] data, ptr[2] indices, ptr[3] updates.
KERNEL {
    u64 idx = linearIndex();
    if (idx >= (u64) (uint) ARG(0)) {
        return;
    }
    int rank = ARG(1), axis = ARG(2);
    ACC acc = ACC(A_LOAD(BUF(A_S, 1)[idx]));
    int rem = (int) idx;
    i64 qBase = 0;
    i64 qStride = 1;
    i64 axisStride = 1;
    int target = 0;
    bool reachable = true;
    for (int d = rank - 1; d >= 0; d--) {
        int dim = ARG(3 + d);
        int c = rem % dim;
        rem /= dim;
        int idim = ARG(11 + d);
        if (d == axis) {
            target = c;
            axisStride = qStride;
        } else {
            if (c >= idim) {
                reachable = false;
            }
            qBase += c * qStride;
        }
        qStride *= idim;
    }
    if (reachable) {
        int len = ARG(11 + axis);
        int axisDim = ARG(3 + axis);
        for (int j = 0; j < len; j++) {
            i64 q = qBase + j * axisStride;
            i64 at = (i64) BUF(I_S, 2)[q];
            if (at < 0) {
                at += axisDim;
            }
            if (at == target) {
                acc += ACC(A_LOAD(BUF(A_S, 3)[q]));
            }
        }
    }
    BUF(OUT_S, 0)[idx] = OUT_STORE(OUT_C(acc));
}
