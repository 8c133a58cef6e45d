// Batched matrix product out[b] = A[b] x B[b] with broadcast batch dims and transposed operands read in place,
// tiled through shared memory (16 x 16 outputs per block, one per thread; grid z is the batch). The fallback of
// products cuBLAS does not take (integer dtypes, batch dims that no single stride describes).
// Macros: A_* and OUT_* types, ACC the accumulator type (float for f32/f16/bf16).
// Arguments: i[0] M, i[1] N, i[2] K, i[3] batch rank (<= 6), i[4..9] batch dims,
// i[10..15] / i[16..21] A / B batch strides (0 where broadcast), i[22] / i[23] A's stride along m / k,
// i[24] / i[25] B's stride along k / n. ptr[0] out, ptr[1] A, ptr[2] B.
KERNEL {
    const int TILE = 16;
    __shared__ ACC tileA[16][16];
    __shared__ ACC tileB[16][16];
    int M = ARG(0), N = ARG(1), K = ARG(2);
    int batch = (int) blockIdx.z;
    i64 aOff = 0, bOff = 0;
    int rem = batch;
    for (int d = ARG(3) - 1; d >= 0; d--) {
        int dim = ARG(4 + d);
        int coord = rem % dim;
        rem /= dim;
        aOff += (i64) coord * ARG(10 + d);
        bOff += (i64) coord * ARG(16 + d);
    }
    i64 sam = ARG(22), sak = ARG(23), sbk = ARG(24), sbn = ARG(25);
    int tx = (int) threadIdx.x, ty = (int) threadIdx.y;
    int row = (int) blockIdx.y * TILE + ty;
    int col = (int) blockIdx.x * TILE + tx;
    ACC acc = ACC(0);
    for (int k0 = 0; k0 < K; k0 += TILE) {
        int ka = k0 + tx, kb = k0 + ty;
        tileA[ty][tx] = row < M && ka < K ? ACC(A_LOAD(BUF(A_S, 1)[aOff + row * sam + ka * sak])) : ACC(0);
        tileB[ty][tx] = col < N && kb < K ? ACC(A_LOAD(BUF(A_S, 2)[bOff + kb * sbk + col * sbn])) : ACC(0);
        __syncthreads();
        int kn = K - k0 < TILE ? K - k0 : TILE;
        for (int k = 0; k < kn; k++) {
            acc += tileA[ty][k] * tileB[k][tx];
        }
        __syncthreads();
    }
    if (row < M && col < N) {
        BUF(OUT_S, 0)[((i64) batch * M + row) * N + col] = OUT_STORE(OUT_C(acc));
    }
}
