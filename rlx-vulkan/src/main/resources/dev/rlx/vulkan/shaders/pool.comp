// Max or average pooling over [N, C, *spatial] (1 to 3 spatial dims padded to 3): one invocation per output.
// MAX skips padding (NaN propagates); AVG divides by the window cells inside input + padding (COUNT_PAD) or
// inside the input. Macros: A_* and OUT_* types, ACC, MAXPOOL or AVGPOOL, COUNT_PAD.
// Arguments: i[0] outputs, i[1] N*C, i[2..4] input spatial, i[5..7] output spatial, i[8..10] kernel,
// i[11..13] strides, i[14..16] begin pads, i[17..19] end pads, i[20..22] dilations. ptr[0] out, ptr[1] x.
layout(local_size_x = LOCAL) in;

void main() {
    uint idx = linearIndex();
    if (idx >= uint(ARG(0))) {
        return;
    }
    ivec3 ins = ivec3(ARG(2), ARG(3), ARG(4));
    ivec3 outs = ivec3(ARG(5), ARG(6), ARG(7));
    ivec3 k = ivec3(ARG(8), ARG(9), ARG(10));
    ivec3 stride = ivec3(ARG(11), ARG(12), ARG(13));
    ivec3 pb = ivec3(ARG(14), ARG(15), ARG(16));
    ivec3 pe = ivec3(ARG(17), ARG(18), ARG(19));
    ivec3 dil = ivec3(ARG(20), ARG(21), ARG(22));
    int r = int(idx);
    ivec3 o;
    o.z = r % outs.z; r /= outs.z;
    o.y = r % outs.y; r /= outs.y;
    o.x = r % outs.x; r /= outs.x;
    int base = r * ins.x * ins.y * ins.z;
#ifdef MAXPOOL
    ACC acc = ACC(uintBitsToFloat(0xff800000u));
#else
    ACC acc = ACC(0);
#endif
    int cells = 0;
    for (int kx = 0; kx < k.x; kx++) {
        int px = o.x * stride.x - pb.x + kx * dil.x;
        for (int ky = 0; ky < k.y; ky++) {
            int py = o.y * stride.y - pb.y + ky * dil.y;
            for (int kz = 0; kz < k.z; kz++) {
                int pz = o.z * stride.z - pb.z + kz * dil.z;
                bool inside = px >= 0 && px < ins.x && py >= 0 && py < ins.y && pz >= 0 && pz < ins.z;
#ifdef COUNT_PAD
                if (px < ins.x + pe.x && py < ins.y + pe.y && pz < ins.z + pe.z) cells++;
#else
                if (inside) cells++;
#endif
                if (!inside) continue;
                ACC x = ACC(A_LOAD(BUF(A_S, 1).v[base + (px * ins.y + py) * ins.z + pz]));
#ifdef MAXPOOL
                acc = rlxMax(acc, x);
#else
                acc += x;
#endif
            }
        }
    }
#ifdef AVGPOOL
    acc /= ACC(cells);
#endif
    BUF(OUT_S, 0).v[idx] = OUT_STORE(OUT_C(acc));
}
