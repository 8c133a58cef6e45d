// Direct N-d convolution (ONNX Conv, cross-correlation, 1 to 3 spatial dims padded to 3 with size-1 dims):
// one invocation per output element sums over its group's input channels and the kernel window, in order.
// With TRANSPOSED, ONNX ConvTranspose gathered per output (w is [Cin, Cout/groups, *kernel]): output o takes
// x[i] * w[k] wherever i * stride - pad + k * dilation = o.
// Macros: A_* and OUT_* types, ACC accumulator type.
// Arguments: i[0] outputs, i[1] N, i[2] Cin, i[3] Cout, i[4] groups, i[5] has bias, i[6..8] input spatial,
// i[9..11] output spatial, i[12..14] kernel, i[15..17] strides, i[18..20] begin pads, i[21..23] dilations.
// ptr[0] out, ptr[1] x, ptr[2] w, ptr[3] bias.
layout(local_size_x = LOCAL) in;

// The input coordinate that kernel tap kk of output coordinate o reads, or -1 when it reads padding.
int tap(int o, int stride, int pad, int kk, int dil, int size) {
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

void main() {
    uint idx = linearIndex();
    if (idx >= uint(ARG(0))) {
        return;
    }
    int cin = ARG(2), cout = ARG(3), groups = ARG(4);
    ivec3 ins = ivec3(ARG(6), ARG(7), ARG(8));
    ivec3 outs = ivec3(ARG(9), ARG(10), ARG(11));
    ivec3 k = ivec3(ARG(12), ARG(13), ARG(14));
    ivec3 stride = ivec3(ARG(15), ARG(16), ARG(17));
    ivec3 pad = ivec3(ARG(18), ARG(19), ARG(20));
    ivec3 dil = ivec3(ARG(21), ARG(22), ARG(23));
    int r = int(idx);
    ivec3 o;
    o.z = r % outs.z; r /= outs.z;
    o.y = r % outs.y; r /= outs.y;
    o.x = r % outs.x; r /= outs.x;
    int co = r % cout;
    int b = r / cout;
    ACC acc = ARG(5) != 0 ? ACC(A_LOAD(BUF(A_S, 3).v[co])) : ACC(0);
#ifndef TRANSPOSED
    int cpg = cin / groups;
    int g = co / (cout / groups);
    for (int c = 0; c < cpg; c++) {
        int ci = g * cpg + c;
        int xBase = (b * cin + ci) * ins.x * ins.y * ins.z;
        int wBase = (co * cpg + c) * k.x * k.y * k.z;
#else
    int opg = cout / groups;
    int cpg = cin / groups;
    int g = co / opg;
    for (int c = 0; c < cpg; c++) {
        int ci = g * cpg + c;
        int xBase = (b * cin + ci) * ins.x * ins.y * ins.z;
        int wBase = (ci * opg + (co - g * opg)) * k.x * k.y * k.z;
#endif
        for (int kx = 0; kx < k.x; kx++) {
            int px = tap(o.x, stride.x, pad.x, kx, dil.x, ins.x);
            if (px < 0) continue;
            for (int ky = 0; ky < k.y; ky++) {
                int py = tap(o.y, stride.y, pad.y, ky, dil.y, ins.y);
                if (py < 0) continue;
                for (int kz = 0; kz < k.z; kz++) {
                    int pz = tap(o.z, stride.z, pad.z, kz, dil.z, ins.z);
                    if (pz < 0) continue;
                    ACC xv = ACC(A_LOAD(BUF(A_S, 1).v[xBase + (px * ins.y + py) * ins.z + pz]));
                    ACC wv = ACC(A_LOAD(BUF(A_S, 2).v[wBase + (kx * k.y + ky) * k.z + kz]));
                    acc += xv * wv;
                }
            }
        }
    }
    BUF(OUT_S, 0).v[idx] = OUT_STORE(OUT_C(acc));
}
