// Max or average pooling over [N, C, *spatial] (1 to 3 spatial dims padded to 3): one thread per output.
// MAX skips padding (NaN propagates); AVG divides by the window cells inside input + padding (COUNT_PAD) or
// inside the input. Macros: A_* and OUT_* types, ACC, MAXPOOL or AVGPOOL, COUNT_PAD.
// Arguments: i[0] outputs, i[1] N*C, i[2..4] input spatial, i[5..7] output spatial, i[8..10] kernel,
// i[11..13] strides, i[14..16] begin pads, i[17..19] end pads, i[20..22] dilations. ptr[0] out, ptr[1] x.
KERNEL {
    u64 idx = linearIndex();
    if (idx >= (u64) (uint) ARG(0)) {
        return;
    }
    int insx = ARG(2), insy = ARG(3), insz = ARG(4);
    int outx = ARG(5), outy = ARG(6), outz = ARG(7);
    int r = (int) idx;
    int oz = r % outz; r /= outz;
    int oy = r % outy; r /= outy;
    int ox = r % outx; r /= outx;
    i64 base = (i64) r * insx * insy * insz;
#ifdef MAXPOOL
    ACC acc = rlxLowest<ACC>();
#else
    ACC acc = ACC(0);
#endif
    int cells = 0;
    for (int kx = 0; kx < ARG(8); kx++) {
        int px = ox * ARG(11) - ARG(14) + kx * ARG(20);
        for (int ky = 0; ky < ARG(9); ky++) {
            int py = oy * ARG(12) - ARG(15) + ky * ARG(21);
            for (int kz = 0; kz < ARG(10); kz++) {
                int pz = oz * ARG(13) - ARG(16) + kz * ARG(22);
                bool inside = px >= 0 && px < insx && py >= 0 && py < insy && pz >= 0 && pz < insz;
#ifdef COUNT_PAD
                if (px < insx + ARG(17) && py < insy + ARG(18) && pz < insz + ARG(19)) cells++;
#else
                if (inside) cells++;
#endif
                if (!inside) continue;
                ACC x = ACC(A_LOAD(BUF(A_S, 1)[base + (px * insy + py) * insz + pz]));
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
    BUF(OUT_S, 0)[idx] = OUT_STORE(OUT_C(acc));
}
