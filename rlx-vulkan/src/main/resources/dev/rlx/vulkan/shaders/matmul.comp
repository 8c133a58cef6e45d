// Batched matrix product out[b] = A[b] x B[b] with broadcast batch dims and transposed operands read in place,
// tiled through shared memory (TILE x TILE outputs per workgroup, one per invocation; workgroup z is the batch).
// Macros: A_* and OUT_* types, ACC the accumulator type (float for f32/f16/bf16).
// Arguments: i[0] M, i[1] N, i[2] K, i[3] batch rank (<= 6), i[4..9] batch dims,
// i[10..15] / i[16..21] A / B batch strides (0 where broadcast), i[22] / i[23] A's stride along m / k,
// i[24] / i[25] B's stride along k / n, i[26] A base, i[27] B base. ptr[0] out, ptr[1] A, ptr[2] B.
// FusedMatMul (EPILOGUE defined): the compiler defines EPILOGUE_BODY, statements computing the epilogue's steps
// from v0 (the product) and the EXTRAS broadcast operands v1 .. vEXTRAS into the next v, and EPILOGUE_RESULT;
// i[28] output rank, i[29..36] output dims, 8 element strides per extra operand from i[37]; ptr[3..] extras.
#define TILE 16
layout(local_size_x = TILE, local_size_y = TILE) in;

shared ACC tileA[TILE][TILE];
shared ACC tileB[TILE][TILE];

void main() {
    int M = ARG(0), N = ARG(1), K = ARG(2);
    int batch = int(gl_WorkGroupID.z);
    int aOff = ARG(26), bOff = ARG(27);
    int rem = batch;
    for (int d = ARG(3) - 1; d >= 0; d--) {
        int dim = ARG(4 + d);
        int coord = rem % dim;
        rem /= dim;
        aOff += coord * ARG(10 + d);
        bOff += coord * ARG(16 + d);
    }
    int sam = ARG(22), sak = ARG(23), sbk = ARG(24), sbn = ARG(25);
    int tx = int(gl_LocalInvocationID.x), ty = int(gl_LocalInvocationID.y);
    int row = int(gl_WorkGroupID.y) * TILE + ty;
    int col = int(gl_WorkGroupID.x) * TILE + tx;
    ACC acc = ACC(0);
    for (int k0 = 0; k0 < K; k0 += TILE) {
        int ka = k0 + tx, kb = k0 + ty;
        tileA[ty][tx] = row < M && ka < K ? ACC(A_LOAD(BUF(A_S, 1).v[aOff + row * sam + ka * sak])) : ACC(0);
        tileB[ty][tx] = col < N && kb < K ? ACC(A_LOAD(BUF(A_S, 2).v[bOff + kb * sbk + col * sbn])) : ACC(0);
        barrier();
        int kn = min(TILE, K - k0);
        for (int k = 0; k < kn; k++) {
            acc += tileA[ty][k] * tileB[k][tx];
        }
        barrier();
    }
    if (row < M && col < N) {
        uint at = uint((batch * M + row) * N + col);
#ifdef EPILOGUE
        A_C v0 = A_C(acc);
#if EXTRAS > 0
        uint off[EXTRAS];
        for (int k = 0; k < EXTRAS; k++) {
            off[k] = 0;
        }
        uint rem = at;
        for (int d = ARG(28) - 1; d >= 0; d--) {
            uint dim = uint(ARG(29 + d));
            uint coord = rem % dim;
            rem /= dim;
            for (int k = 0; k < EXTRAS; k++) {
                off[k] += coord * uint(ARG(37 + 8 * k + d));
            }
        }
#endif
        EPILOGUE_BODY
        BUF(OUT_S, 0).v[at] = OUT_STORE(EPILOGUE_RESULT);
#else
        BUF(OUT_S, 0).v[at] = OUT_STORE(OUT_C(acc));
#endif
    }
}
