// Direct N-d convolution (ONNX Conv, cross-correlation, 1 to 3 spatial dims padded to 3 with size-1 dims):
// one thread per output element sums over its group's input channels and the kernel window, in order.
// With TRANSPOSED, ONNX ConvTranspose gathered per output (w is [Cin, Cout/groups, *kernel]): output o takes
// x[i] * w[k] wherever i * stride - pad + k * dilation = o. (Not implicit GEMM yet: see the README.)
// Macros: A_* and OUT_* types, ACC accumulator type.
// Arguments: i[0] outputs, i[1] N, i[2] Cin, i[3] Cout, i[4] groups, i[5] has bias, i[6..8] input spatial,
// i[9..11] output spatial, i[12..14] kernel, i[15..17] strides, i[18..20] begin pads, i[21..23] dilations.
// ptr[0] out, ptr[1] x, ptr[2] w, ptr[3] bias.

// The input coordinate that kernel tap kk of output coordinate o reads, or -1 when it reads padding.
__device__ static inline int tap(int o, int stride, int pad, int kk, int dil, int size) {
#ifndef TRANSPOSED
    int p = o * stride - pad + kk * dil;
    return p >= 0 && p < size ? p : -1;
#else
    int num = o + pad - kk * dil;
    if (num < 0 || num % stride != 0) return -1;
    int p = num / stride;
    return p < size ? p : -1;
#endif
}

KERNEL {
    u64 idx = linearIndex();
    if (idx >= (u64) (uint) ARG(0)) {
        return;
    }
    int cin = ARG(2), cout = ARG(3), groups = ARG(4);
    int insx = ARG(6), insy = ARG(7), insz = ARG(8);
    int outx = ARG(9), outy = ARG(10), outz = ARG(11);
    int kx_ = ARG(12), ky_ = ARG(13), kz_ = ARG(14);
    int r = (int) idx;
    int oz = r % outz; r /= outz;
    int oy = r % outy; r /= outy;
    int ox = r % outx; r /= outx;
    int co = r % cout;
    int b = r / cout;
    ACC acc = ARG(5) != 0 ? ACC(A_LOAD(BUF(A_S, 3)[co])) : ACC(0);
    int cpg = cin / groups;
#ifndef TRANSPOSED
    int g = co / (cout / groups);
#else
    int opg = cout / groups;
    int g = co / opg;
#endif
    for (int c = 0; c < cpg; c++) {
        int ci = g * cpg + c;
        i64 xBase = (i64) (b * cin + ci) * insx * insy * insz;
#ifndef TRANSPOSED
        i64 wBase = (i64) (co * cpg + c) * kx_ * ky_ * kz_;
#else
        i64 wBase = (i64) (ci * opg + (co - g * opg)) * kx_ * ky_ * kz_;
#endif
        for (int kx = 0; kx < kx_; kx++) {
            int px = tap(ox, ARG(15), ARG(18), kx, ARG(21), insx);
            if (px < 0) continue;
            for (int ky = 0; ky < ky_; ky++) {
                int py = tap(oy, ARG(16), ARG(19), ky, ARG(22), insy);
                if (py < 0) continue;
                for (int kz = 0; kz < kz_; kz++) {
                    int pz = tap(oz, ARG(17), ARG(20), kz, ARG(23), insz);
                    if (pz < 0) continue;
                    ACC xv = ACC(A_LOAD(BUF(A_S, 1)[xBase + (px * insy + py) * insz + pz]));
                    ACC wv = ACC(A_LOAD(BUF(A_S, 2)[wBase + (kx * ky_ + ky) * kz_ + kz]));
                    acc += xv * wv;
                }
            }
        }
    }
    BUF(OUT_S, 0)[idx] = OUT_STORE(OUT_C(acc));
}
